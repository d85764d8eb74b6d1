"""Grade an already-executed task in place: the trajectory and workspace on disk, no agent.

Shared by `run --resume` (rows `execute` left ungraded) and `evaluate RUN_DIR`.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from pydantic import ValidationError

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade
from coder_eval.engine.hooks import run_post
from coder_eval.engine.reference import reference_source, staged_reference
from coder_eval.engine.task_log import TaskLog
from coder_eval.errors import CoderEvalError
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.criteria import LlmJudgeCriterion, RunCommandCriterion, UipathEvalCriterion
from coder_eval.models.criteria_judges import AgentJudgeCriterion, SystemOneJudgeCriterion
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.models.task import TaskDefinition
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import ARTIFACTS_DIR, TASK_EXECUTE_JSON, TASK_JSON
from coder_eval.sandbox.deadline import Deadline
from coder_eval.sandbox.sandbox import Sandbox

GRADE_LOG = "grade.log"
_SHELL_CRITERIA = (
    RunCommandCriterion,
    LlmJudgeCriterion,
    AgentJudgeCriterion,
    SystemOneJudgeCriterion,
    UipathEvalCriterion,
)


class RegradeError(CoderEvalError):
    """A recorded task cannot be graded in place."""

    exit_code = 1


def task_from_record(result: EvaluationResult, record_path: Path) -> LoadedTask:
    """Rebuild the task as it was resolved for the run (not by re-reading the YAML, which may have changed)."""
    config = result.task_config or {}
    try:
        definition = TaskDefinition.model_validate(config.get("resolved") or {})
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RegradeError(
            f"{record_path}: the recorded task config no longer validates ({where}: {first['msg']}); "
            "grade it with `evaluate TASK_YAML WORKDIR` instead"
        ) from None
    source = Path(str(config.get("source_file") or record_path))
    return LoadedTask(definition, source, suite_id=result.suite_id, row_id=result.row_id, row=config.get("row"))


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


def _workspace(result: EvaluationResult, out_dir: Path) -> Path:
    recorded = Path(result.sandbox_path) if result.sandbox_path else None
    if recorded is not None and recorded.is_dir() and out_dir.resolve() in recorded.resolve().parents:
        return recorded
    fallback = out_dir / ARTIFACTS_DIR
    if not fallback.is_dir():
        raise RegradeError(f"{out_dir}: the workspace was not preserved (run with a preservation mode other than NONE)")
    return fallback


def _status(prior: EvaluationResult, fresh: FinalStatus) -> FinalStatus:
    if prior.final_status.is_execution_fact:
        return prior.final_status
    if fresh is FinalStatus.FAILURE and prior.max_turns_exhausted:
        return FinalStatus.MAX_TURNS_EXHAUSTED
    return fresh


def regrade_in_place(prior: EvaluationResult, task: LoadedTask, out_dir: Path) -> EvaluationResult:
    """Grade the preserved workspace with the recorded trajectory; keep task.execute.json."""
    clock = time.monotonic()
    log = TaskLog()
    workspace = _workspace(prior, out_dir)
    sandbox = Sandbox(
        task.definition.sandbox, task_dir=task.task_dir, task_file=task.source_file, artifacts_dir=workspace
    )
    sandbox.adopt(workspace)
    ref_dir = reference_source(task)
    with staged_reference(ref_dir, task_file=task.source_file) as (reference, _digest):
        ctx = CheckContext(
            root=workspace,
            ignore=sandbox.ignore,
            task_dir=task.task_dir,
            reference_dir=reference,
            turns=prior.iterations,
            base_env=sandbox.env(),
            # a grade with no unit around it still ends its file reads within the task's timeout
            deadline=Deadline(task.definition.run_limits.task_timeout),
        )
        outcome = grade(list(task.definition.success_criteria), ctx)
    post = prior.post_run_results or run_post(sandbox, task.definition.post_run, log, {"TASK_DIR": str(task.task_dir)})
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
        }
    )
    execute_copy = out_dir / TASK_EXECUTE_JSON
    if not execute_copy.exists() and (out_dir / TASK_JSON).is_file():
        shutil.copyfile(out_dir / TASK_JSON, execute_copy)
    write_text_atomic(out_dir / GRADE_LOG, "\n".join(log.lines) + "\n")  # the atomic writer redacts
    write_text_atomic(out_dir / TASK_JSON, graded.model_dump_json(indent=2))
    return graded
