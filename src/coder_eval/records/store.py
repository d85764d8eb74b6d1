"""Read and write the JSON records of a run directory."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from coder_eval.common.collector import collector_paused
from coder_eval.errors import RecordError
from coder_eval.models.results import EvaluationResult
from coder_eval.models.run import RunSummary
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import RUN_JSON, TASK_JSON, find_task_results


def write_task_result(directory: Path, result: EvaluationResult) -> Path:
    path = directory / TASK_JSON
    write_text_atomic(path, result.model_dump_json(indent=2))
    return path


def read_task_result(path: Path) -> EvaluationResult:
    try:
        return EvaluationResult.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
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
        return RunSummary.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise RecordError(f"{path} is not a valid run summary: {exc.errors(include_url=False)[0]['msg']}") from None
