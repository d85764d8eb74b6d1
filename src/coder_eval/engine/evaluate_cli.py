"""The library half of `coder-eval evaluate TASK WORKDIR`: pick the task, grade, write records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder_eval.engine.evaluate import EvaluateOptions, evaluate_directory
from coder_eval.engine.report_files import write_run_files
from coder_eval.errors import UsageError
from coder_eval.loading.loader import LoadedTask, expand_dataset, load_task_file
from coder_eval.models.results import EvaluationResult
from coder_eval.records.layout import DEFAULT_RUNS_DIR, default_run_dir, new_run_id, point_latest


@dataclass
class EvaluateOutcome:
    result: EvaluationResult
    run_dir: Path


def pick_task(task_file: Path, row: str | None) -> LoadedTask:
    if task_file.is_dir():
        raise UsageError(f"{task_file} is a directory; pass one task YAML file")
    task, raw = load_task_file(task_file)
    tasks = expand_dataset(task, raw, task_file)
    if row is not None:
        match = [t for t in tasks if t.row_id == row]
        if not match:
            raise UsageError(
                f"{task_file} has no dataset row {row!r}; rows: {', '.join(str(t.row_id) for t in tasks[:20])}"
            )
        return match[0]
    if len(tasks) > 1:
        raise UsageError(f"{task_file} fans out over {len(tasks)} dataset rows; choose one with --row")
    return tasks[0]


def run_evaluate(
    task_file: Path, workdir: Path, *, run_dir: Path | None, in_place: bool, preserve: bool, row: str | None
) -> EvaluateOutcome:
    if not workdir.is_dir():
        raise UsageError(f"work directory {workdir} does not exist or is not a directory")
    task = pick_task(task_file, row)
    runs_root = Path(DEFAULT_RUNS_DIR)
    target = run_dir or default_run_dir(runs_root, new_run_id())
    if target.resolve() == workdir.resolve() or workdir.resolve() in target.resolve().parents:
        raise UsageError("--run-dir must not be inside the directory being graded")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot use {target} as the run directory ({exc.strerror or exc})") from None
    result = evaluate_directory(task, workdir, target, EvaluateOptions(in_place=in_place, preserve=preserve))
    write_run_files(target, [result])
    if run_dir is None:
        point_latest(runs_root, target)
    return EvaluateOutcome(result, target)
