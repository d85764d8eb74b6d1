"""Grade an already-executed task in place: the trajectory and workspace on disk, no agent.

Shared by `run --resume` (rows `execute` left ungraded) and `evaluate RUN_DIR`.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import Grade, grade
from coder_eval.engine.files_before import recorded_before
from coder_eval.engine.hooks import run_post, scrub_command
from coder_eval.engine.recorded_task import RegradeError, task_from_record
from coder_eval.engine.reference import ReferenceTamperedError
from coder_eval.engine.sandboxed_grading import GradingSandbox, grading_sandbox
from coder_eval.engine.task_log import TaskLog
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.criteria import (
    HarborVerifierCriterion,
    LlmJudgeCriterion,
    RunCommandCriterion,
    UipathEvalCriterion,
)
from coder_eval.models.criteria_judges import AgentJudgeCriterion, SystemOneJudgeCriterion
from coder_eval.models.results import EvaluationResult, RecordNotes
from coder_eval.models.status import FinalStatus
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import ARTIFACTS_DIR, CLI_CALLS, SCRATCH_DIR, TASK_EXECUTE_JSON, TASK_JSON
from coder_eval.sandbox.cli_recorder import RecordedCliLog
from coder_eval.sandbox.deadline import Deadline
from coder_eval.sandbox.templates import SetupError

__all__ = [
    "GRADE_LOG",
    "RegradeError",
    "graded_workspace",
    "preserved_workspace",
    "recorded_commands",
    "regrade_in_place",
    "task_from_record",
]

GRADE_LOG = "grade.log"
_SHELL_CRITERIA = (
    RunCommandCriterion,
    HarborVerifierCriterion,
    LlmJudgeCriterion,
    AgentJudgeCriterion,
    SystemOneJudgeCriterion,
    UipathEvalCriterion,
)


def recorded_commands(task: LoadedTask, result: EvaluationResult) -> list[str]:
    """Everything a grade would execute that came from the record rather than from the operator."""
    found = [
        f"{c.type}: {getattr(c, 'command', c.description)}"
        for c in task.definition.success_criteria
        if isinstance(c, _SHELL_CRITERIA)
    ]
    if not result.post_run_results:
        found += [f"post_run: {c.command}" for c in task.definition.post_run]
    return found


def preserved_workspace(result: EvaluationResult, out_dir: Path) -> Path:
    """The unit's preserved workspace (its recorded sandbox path inside the unit's directory, else artifacts/)."""
    recorded = Path(result.sandbox_path) if result.sandbox_path else None
    if recorded is not None and recorded.is_dir() and out_dir.resolve() in recorded.resolve().parents:
        return recorded
    fallback = out_dir / ARTIFACTS_DIR
    if not fallback.is_dir():
        raise RegradeError(f"{out_dir}: the workspace was not preserved (run with a preservation mode other than NONE)")
    return fallback


def _recorded_cli_log(out_dir: Path) -> RecordedCliLog | None:
    """The harness's record of the unit's record_cli calls; a run from before it existed has none, and
    `cli_called` then reads the workspace copy (and says it is agent-writable)."""
    path = out_dir / CLI_CALLS
    return RecordedCliLog(path) if path.exists() or path.is_symlink() else None


def _status(prior: EvaluationResult, fresh: FinalStatus) -> FinalStatus:
    if prior.final_status.is_execution_fact:
        return prior.final_status
    if fresh is FinalStatus.FAILURE and prior.max_turns_exhausted:
        return FinalStatus.MAX_TURNS_EXHAUSTED
    return fresh


def _noted(prior: EvaluationResult, note: str | None) -> RecordNotes | None:
    if note is None:
        return prior.record_notes
    notes = prior.record_notes or RecordNotes()
    return notes.model_copy(update={"mapped": [*notes.mapped, note]}) if note not in notes.mapped else notes


@contextmanager
def graded_workspace(
    prior: EvaluationResult,
    task: LoadedTask,
    workspace: Path,
    scratch: Path,
    run_dir: Path,
    out_dir: Path,
    log: TaskLog,
) -> Iterator[tuple[Grade, GradingSandbox]]:
    """Grade `workspace` with the task's criteria and the recorded trajectory, in a fresh environment of
    the task's own driver; yields the outcome with the environment still open (post_run may follow).

    Raises RegradeError when the environment cannot be set up or the reference changed."""
    try:
        with grading_sandbox(task, workspace, scratch, run_dir, log) as graded_in:
            guard = graded_in.guard
            ctx = CheckContext(
                root=workspace,
                ignore=graded_in.sandbox.ignore,
                task_dir=task.task_dir,
                reference_dir=graded_in.reference,
                turns=prior.iterations,
                environment=graded_in.sandbox.live,
                command_dirs=graded_in.command_dirs,
                # a grade with no unit around it still ends its file reads within the task's timeout
                deadline=Deadline(task.definition.run_limits.task_timeout),
                cli_log=_recorded_cli_log(out_dir),
                scrubber=guard.scrubber,
                grading=guard,
                files_before=recorded_before(prior.environment_info),
            )
            outcome = grade(list(task.definition.success_criteria), ctx)
            graded_in.check_reference()
            yield outcome, graded_in
    except (SetupError, ReferenceTamperedError) as exc:
        raise RegradeError(f"{out_dir}: cannot grade the preserved workspace: {exc}") from None


def regrade_in_place(
    prior: EvaluationResult, task: LoadedTask, out_dir: Path, run_dir: Path, *, note: str | None = None
) -> EvaluationResult:
    """Grade the preserved workspace with the recorded trajectory; keep task.execute.json.

    `note` says how the task was obtained when that is worth recording (kept in `record_notes`)."""
    clock = time.monotonic()
    log = TaskLog()
    workspace = preserved_workspace(prior, out_dir)
    scratch = out_dir / SCRATCH_DIR
    try:
        with graded_workspace(prior, task, workspace, scratch, run_dir, out_dir, log) as (outcome, graded_in):
            guard = graded_in.guard
            task_env = {"TASK_DIR": graded_in.command_dirs["TASK_DIR"]}
            if not prior.post_run_results:
                guard.settle()  # nothing the criteria started lives into post_run
            post = prior.post_run_results or [
                scrub_command(r, guard.scrubber)
                for r in run_post(graded_in.sandbox, task.definition.post_run, log, task_env)
            ]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    status = _status(prior, outcome.status)
    score = 0.0 if status.is_execution_fact else outcome.weighted_score
    for r in outcome.results:
        log.add(f"[{r.outcome}] {r.criterion_type} score={r.score:.3f}: {r.description}")
    env = {**prior.environment_info, "grading_duration_seconds": round(time.monotonic() - clock, 3)}
    graded = prior.model_copy(
        update={
            "final_status": status,
            "weighted_score": score,
            "success_criteria_results": outcome.results,
            "post_run_results": post,
            "environment_info": env,
            "error_message": prior.error_message or ("; ".join(outcome.problems) or None),
            "record_notes": _noted(prior, note),
        }
    )
    execute_copy = out_dir / TASK_EXECUTE_JSON
    if not execute_copy.exists() and (out_dir / TASK_JSON).is_file():
        shutil.copyfile(out_dir / TASK_JSON, execute_copy)
    write_text_atomic(out_dir / GRADE_LOG, "\n".join(log.lines) + "\n")  # the atomic writer redacts
    write_text_atomic(out_dir / TASK_JSON, graded.model_dump_json(indent=2))
    return graded
