"""Read and write the JSON records of a run directory."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from coder_eval.common.collector import collector_paused
from coder_eval.errors import RecordError
from coder_eval.models.results import EvaluationResult
from coder_eval.models.run import RunSummary
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import RUN_JSON, TASK_JSON, find_task_results
from coder_eval.records.legacy import read_run_record, read_task_record

OWN_RECORD_MARKER = b'"secrets_in_artifacts"'
"""A key every task.json we write has and the reference's never do: such a record takes the fast path."""


def write_task_result(directory: Path, result: EvaluationResult) -> Path:
    path = directory / TASK_JSON
    write_text_atomic(path, result.model_dump_json(indent=2))
    return path


def read_task_result(path: Path) -> EvaluationResult:
    """A task.json; one in another format (the reference system's) is converted, with notes on the result."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    if OWN_RECORD_MARKER in data:
        try:
            return EvaluationResult.model_validate_json(data)
        except ValidationError:
            pass  # written by us but not readable as is (an older version): the converter says what it changed
    try:
        raw = json.loads(data)
        if not isinstance(raw, dict):
            raise RecordError(f"{path} is not a valid task record (not a JSON object)")
        return read_task_record(raw)
    except ValueError as exc:
        raise RecordError(f"{path} is not a valid task record (not JSON: {exc})") from None
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RecordError(f"{path} is not a valid task record ({where}: {first['msg']})") from None


def read_task_results(run_dir: Path, paths: list[Path] | None = None) -> tuple[list[EvaluationResult], list[str]]:
    """All task results under a run dir (or these task.json files of it), plus a warning for each unreadable one."""
    results: list[EvaluationResult] = []
    warnings: list[str] = []
    with collector_paused():
        for path in find_task_results(run_dir) if paths is None else paths:
            try:
                results.append(read_task_result(path))
            except RecordError as exc:
                warnings.append(str(exc))
    return results, warnings


def write_run_summary(directory: Path, summary: RunSummary) -> Path:
    path = directory / RUN_JSON
    write_text_atomic(path, summary.model_dump_json(indent=2))
    return path


def read_run_summary(run_dir: Path) -> RunSummary:
    path = run_dir / RUN_JSON
    if not path.is_file():
        raise RecordError(f"{run_dir} has no {RUN_JSON}; run `coder-eval aggregate {run_dir}` to rebuild it")
    try:
        return read_run_record(json.loads(path.read_bytes()))
    except (OSError, ValueError) as exc:
        raise RecordError(f"{path} is not a readable run summary ({exc.__class__.__name__}: {exc})") from None
