"""`evaluate RUN_DIR`: re-grade every recorded task of a run in place, then rebuild run.json."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.engine.recorded_task import RegradeError, task_from_record
from coder_eval.engine.regrade_task import recorded_commands, regrade_in_place
from coder_eval.engine.report_files import write_run_files
from coder_eval.models.results import EvaluationResult
from coder_eval.models.run import RunSummary
from coder_eval.records.layout import find_task_results
from coder_eval.records.store import read_run_summary, read_task_result


@dataclass
class RegradeOutcome:
    summary: RunSummary | None = None
    graded: list[EvaluationResult] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def is_run_dir(path: Path) -> bool:
    return path.is_dir() and bool(find_task_results(path))


def regrade_run(run_dir: Path, *, allow_recorded_commands: bool) -> RegradeOutcome:
    """Grade each task.json's preserved workspace with its recorded trajectory.

    A run directory can come from anyone, so commands it would make us execute
    (run_command criteria, judges, an unexecuted post_run) are refused unless allowed.
    """
    paths = find_task_results(run_dir)
    planned = []
    outcome = RegradeOutcome()
    unplanned: list[EvaluationResult] = []
    for path in paths:
        prior = read_task_result(path)
        try:
            recorded = task_from_record(prior, path)
        except RegradeError as exc:  # this record cannot be rebuilt here; the others still can
            outcome.failures.append(str(exc))
            unplanned.append(prior)
            continue
        task = recorded.task
        commands = recorded_commands(task, prior)
        if commands and not allow_recorded_commands:
            listed = "; ".join(commands[:5]) + (f" (+{len(commands) - 5} more)" if len(commands) > 5 else "")
            raise RegradeError(
                f"{path} would run {len(commands)} command(s) taken from the record: {listed}. "
                "Re-run with --allow-recorded-commands if you trust this run directory."
            )
        planned.append((path, prior, recorded))
    results = list(unplanned)
    for path, prior, recorded in planned:
        try:
            graded = regrade_in_place(prior, recorded.task, path.parent, run_dir, note=recorded.note)
            outcome.graded.append(graded)
            results.append(graded)
        except RegradeError as exc:
            outcome.failures.append(str(exc))
            results.append(prior)
    outcome.summary = rebuild_summary(run_dir, results)
    return outcome


def rebuild_summary(run_dir: Path, results: list[EvaluationResult]) -> RunSummary:
    """run.json and run.md of `run_dir` rewritten from `results`, keeping the skips and parallelism recorded."""
    try:
        previous = read_run_summary(run_dir)
        skipped, parallel = previous.skipped_tasks, previous.max_parallel
    except Exception:
        skipped, parallel = [], 1
    return write_run_files(run_dir, results, run_id=run_dir.name, skipped=skipped, max_parallel=parallel)
