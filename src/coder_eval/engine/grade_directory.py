"""`coder-eval evaluate TASK WORKDIR`: grade a directory against a task's criteria, no agent.

`run_evaluate` is the command's library half (pick the task or dataset row, grade, write the
records); `evaluate_directory` grades and writes task.json / task.log for one task.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from coder_eval.common.bounded_copy import CopyBudget, copy_file
from coder_eval.common.ignore import IgnoreRules
from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import Grade, grade
from coder_eval.engine.provenance import environment_info, task_config_record
from coder_eval.engine.reference import ReferenceTamperedError
from coder_eval.engine.report_files import write_run_files
from coder_eval.engine.sandboxed_grading import grading_sandbox
from coder_eval.engine.task_log import TaskLog
from coder_eval.errors import UsageError
from coder_eval.loading.loader import LoadedTask, expand_dataset, read_task_file
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.records.layout import (
    ARTIFACTS_DIR,
    DEFAULT_RUNS_DIR,
    SCRATCH_DIR,
    default_run_dir,
    new_run_id,
    point_latest,
    replicate_dir,
)
from coder_eval.records.store import write_task_result
from coder_eval.sandbox.deadline import Deadline
from coder_eval.sandbox.templates import SetupError


@dataclass
class EvaluateOptions:
    in_place: bool = False
    preserve: bool = True
    variant_id: str = "default"
    replicate_index: int = 0


def _grade_tree(task: LoadedTask, root: Path, log: TaskLog, run_dir: Path) -> Grade:
    """Grade `root` with the task's criteria, their commands inside the task's own sandbox driver."""
    scratch = run_dir / SCRATCH_DIR
    try:
        with grading_sandbox(task, root, scratch, run_dir, log) as graded_in:
            ctx = CheckContext(
                root=root,
                ignore=IgnoreRules.with_overrides(task.definition.sandbox.ignore_patterns),
                task_dir=task.task_dir,
                reference_dir=graded_in.reference,
                turns=None,
                environment=graded_in.sandbox.live,
                command_dirs=graded_in.command_dirs,
                # a grade with no unit around it still ends its file reads within the task's timeout
                deadline=Deadline(task.definition.run_limits.task_timeout),
                scrubber=graded_in.guard.scrubber,
                grading=graded_in.guard,
            )
            result = grade(list(task.definition.success_criteria), ctx)
            graded_in.check_reference()
    except SetupError as exc:
        raise UsageError(f"cannot set up the task's sandbox to grade {root}: {exc}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for r in result.results:
        log.add(f"[{r.outcome}] {r.criterion_type} score={r.score:.3f}: {r.description}")
        if r.details:
            log.add(f"    {r.details}")
        if r.error:
            log.add(f"    error: {r.error}")
    return result


def _copy_workdir(workdir: Path, root: Path, log: TaskLog) -> None:
    """Copy the directory to grade, sparse files kept sparse and within the copy caps (what is over
    them is left out and logged); a file that cannot be copied (a named pipe) is a usage error."""
    budget = CopyBudget()

    def copy(src: str, dst: str) -> None:
        if not stat.S_ISREG(os.lstat(src).st_mode):
            shutil.copy2(src, dst)  # raises for what is no file, as copytree reports
        elif not copy_file(Path(src), Path(dst), budget, os.path.relpath(src, workdir)):
            log.add(f"left out of the copy graded: {budget.notes[-1]}")

    try:
        shutil.copytree(workdir, root, symlinks=True, copy_function=copy)
    except shutil.Error as exc:  # one (src, dst, why) triple per file that failed
        failures = exc.args[0] if exc.args and isinstance(exc.args[0], list) else []
        why = str(failures[0][2]) if failures else str(exc)
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        raise UsageError(f"cannot copy {workdir} for grading: {why}{more}") from None
    except OSError as exc:
        raise UsageError(f"cannot copy {workdir} for grading ({exc.strerror or exc})") from None


def evaluate_directory(task: LoadedTask, workdir: Path, run_dir: Path, options: EvaluateOptions) -> EvaluationResult:
    """Grade `workdir` (or a copy of it) and write task.json and task.log for it."""
    started = datetime.now(UTC)
    clock = time.monotonic()
    out_dir = replicate_dir(run_dir, options.variant_id, task.task_id, options.replicate_index)
    out_dir.mkdir(parents=True, exist_ok=True)
    log = TaskLog()
    log.add(f"evaluating {task.task_id} from {task.source_file} against {workdir}")
    root = workdir.resolve()
    if not options.in_place:
        root = out_dir / ARTIFACTS_DIR
        if root.exists():
            shutil.rmtree(root)
        _copy_workdir(workdir, root, log)
        log.add(f"grading a copy at {root}")
    error: str | None = None
    try:
        outcome = _grade_tree(task, root, log, run_dir)
        status, score = outcome.status, outcome.weighted_score
        results = outcome.results
        if outcome.problems:
            error = "; ".join(outcome.problems)
    except ReferenceTamperedError as exc:
        status, score, results, error = FinalStatus.ERROR, 0.0, [], str(exc)
    if status is FinalStatus.ERROR and score is None:
        score = 0.0
    log.add(f"final status {status.value}, weighted score {score if score is None else round(score, 4)}")
    kept = options.in_place or options.preserve
    if not kept:
        shutil.rmtree(root, ignore_errors=True)
    result = EvaluationResult(
        task_id=task.task_id,
        task_description=task.definition.description,
        variant_id=options.variant_id,
        suite_id=task.suite_id,
        row_id=task.row_id,
        replicate_index=options.replicate_index,
        tags=list(task.definition.tags),
        task_path=str(task.source_file),
        agent_type=task.definition.agent_type,
        started_at=started,
        completed_at=datetime.now(UTC),
        duration_seconds=time.monotonic() - clock,
        final_status=status,
        weighted_score=score,
        success_criteria_results=results,
        error_message=error,
        environment_info=environment_info(),
        sandbox_path=str(root) if kept else None,
        task_config=task_config_record(task),
    )
    write_task_result(out_dir, result)
    log.write(out_dir)
    return result


@dataclass
class EvaluateOutcome:
    result: EvaluationResult
    run_dir: Path


def pick_task(task_file: Path, row: str | None) -> LoadedTask:
    if task_file.is_dir():
        raise UsageError(f"{task_file} is a directory; pass one task YAML file")
    loaded = read_task_file(task_file)
    tasks = expand_dataset(loaded.definition, loaded.raw, task_file, warnings=tuple(loaded.warnings))
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
    task_file: Path,
    workdir: Path,
    *,
    run_dir: Path | None,
    in_place: bool,
    preserve: bool,
    row: str | None,
    driver: str | None = None,
) -> EvaluateOutcome:
    if not workdir.is_dir():
        raise UsageError(f"work directory {workdir} does not exist or is not a directory")
    task = pick_task(task_file, row)
    if driver is not None:  # the operator's choice of where the grading commands run
        sandbox = task.definition.sandbox.model_copy(update={"driver": driver})
        task = replace(task, definition=task.definition.model_copy(update={"sandbox": sandbox}))
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
