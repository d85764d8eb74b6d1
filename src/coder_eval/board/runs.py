"""A run as the board shows it: the summary numbers, the state, and one compact row per replicate."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from coder_eval.board.cache import FileCache
from coder_eval.board.catalog import RunEntry, RunState, run_state
from coder_eval.errors import RecordError
from coder_eval.models.results import EvaluationResult
from coder_eval.models.run import RunSummary
from coder_eval.models.status import FinalStatus
from coder_eval.records.layout import RUN_JSON, RUN_PLAN, find_task_results, replicate_dir
from coder_eval.records.legacy import conversion_lines, read_run_record
from coder_eval.records.store import read_task_result
from coder_eval.records.summary import build_run_summary

ERROR_PREVIEW = 300


@dataclass
class RunView:
    """Everything the index, run, trends and compare pages need from one run."""

    entry: RunEntry
    state: RunState
    summary: RunSummary
    rows: list[dict[str, Any]]
    interrupted: bool
    warnings: list[str] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return self.entry.run_id


def compact_row(raw: dict[str, Any]) -> dict[str, Any]:
    """The fields of a run.json row that the table, trends and compare use, under short names."""
    status = str(raw.get("status", "ERROR"))
    try:
        category = FinalStatus(status).category
    except ValueError:
        category = "error"
    task_id = str(raw.get("task_id", "?"))
    variant = str(raw.get("variant_id", "default"))
    replicate = int(raw.get("replicate_index") or 0)
    error = raw.get("error_message")
    return {
        "task_id": task_id,
        "variant_id": variant,
        "replicate_index": replicate,
        "row_id": raw.get("row_id"),
        "suite_id": raw.get("suite_id"),
        "status": status,
        "category": category,
        "score": raw.get("weighted_score"),
        "duration": raw.get("duration"),
        "cost": raw.get("total_cost_usd"),
        "agent_cost": raw.get("agent_cost_usd"),
        "judge_cost": raw.get("judge_cost_usd"),
        "simulator_cost": raw.get("simulator_cost_usd"),
        "tokens": raw.get("total_tokens"),
        "turns": raw.get("iteration_count"),
        "tags": list(raw.get("tags") or []),
        "model": raw.get("model_used"),
        "agent": raw.get("agent_type"),
        "error": str(error)[:ERROR_PREVIEW] if error else None,
        "path": replicate_dir(Path(), variant, task_id, replicate).as_posix(),
    }


def _was_interrupted(raw_rows: list[dict[str, Any]]) -> bool:
    """A turn cancelled by an interrupt leaves its reason on the row's iteration digest."""
    return any(
        "interrupt" in str(it.get("crash_reason") or "")
        for row in raw_rows
        for it in (row.get("iterations") or [])
        if isinstance(it, dict)
    )


class RunReader:
    """Reads runs through a cache: run.json once per version, task.json once per version."""

    def __init__(self, cache: FileCache | None = None) -> None:
        self.cache = cache or FileCache()

    def task(self, path: Path) -> EvaluationResult:
        result: EvaluationResult = self.cache.get("task", path, read_task_result)
        return result

    def view(self, entry: RunEntry) -> RunView:
        state = run_state(entry.directory)
        if state == "finished":
            loaded: _Loaded = self.cache.get("run", entry.directory / RUN_JSON, _load_run)
            summary, rows, flagged = loaded
            warnings: list[str] = []
        else:
            summary, warnings = self._summary_from_tasks(entry)
            rows, flagged = [compact_row(r) for r in summary.task_results], False
        warnings += [f"read from another format: {line}" for line in summary.record_conversions]
        interrupted = flagged or state == "incomplete" or _was_interrupted(summary.task_results)
        return RunView(entry, state, summary, rows, interrupted, warnings)

    def _summary_from_tasks(self, entry: RunEntry) -> tuple[RunSummary, list[str]]:
        """A run still going (or killed) has no run.json yet: build one from its finished tasks."""
        results: list[EvaluationResult] = []
        warnings: list[str] = []
        for path in find_task_results(entry.directory):
            try:
                results.append(self.task(path))
            except RecordError as exc:
                warnings.append(str(exc))
        summary = build_run_summary(entry.run_id, results)
        planned = _planned(entry.directory)
        if planned is not None:
            summary = summary.model_copy(update={"units_planned": planned, "units_finished": len(results)})
        return summary, warnings


_Loaded = tuple[RunSummary, list[dict[str, Any]], bool]


def _task_conversions(run_dir: Path) -> list[str]:
    """How the task records of a run written by the reference were read (its run.json cannot say)."""
    notes = []
    unreadable = []
    for task_path in find_task_results(run_dir):
        try:
            notes.append(read_task_result(task_path).record_notes)
        except RecordError as exc:
            unreadable.append(f"unreadable: {exc}")
    return [*conversion_lines(notes), *unreadable]


def _load_run(path: Path) -> _Loaded:
    """run.json parsed once: the summary, its compact rows, and an `interrupted` key if a writer set one."""
    try:
        raw = json.loads(path.read_bytes())
        summary = read_run_record(raw)
        if raw.get("framework_version") and "tasks_not_graded" not in raw:  # the reference's: rows say more
            summary = summary.model_copy(
                update={"record_conversions": [*summary.record_conversions, *_task_conversions(path.parent)]}
            )
    except (OSError, ValidationError, ValueError) as exc:
        raise RecordError(
            f"{path} is not a readable run summary ({exc.__class__.__name__}); "
            f"rebuild it with `coder-eval aggregate {path.parent}`"
        ) from None
    return summary, [compact_row(r) for r in summary.task_results], raw.get("interrupted") is True


def _planned(directory: Path) -> int | None:
    """The planned total a running run wrote at its start (run-plan.json), or None."""
    try:
        value = json.loads((directory / RUN_PLAN).read_bytes()).get("units_planned")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and value >= 0 else None
