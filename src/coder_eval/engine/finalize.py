"""Turn what a unit gathered into its EvaluationResult and write task.json and task.log."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from coder_eval.common.shared_cache import SharedDerived
from coder_eval.criteria.grading import Grade
from coder_eval.engine.agent_phase import total_usage
from coder_eval.engine.fingerprint import unit_fingerprint
from coder_eval.engine.unit_network import with_network_reason
from coder_eval.models.criteria import CommandsEfficiencyCriterion
from coder_eval.models.results import CriterionResult, EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import CommandStatistics, TokenUsage
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import TASK_JSON, TASK_LOG

if TYPE_CHECKING:
    from coder_eval.engine.orchestrator import RunOptions, UnitState

_PHASE_STATUS = {
    "timeout": FinalStatus.TIMEOUT,
    "crashed": FinalStatus.ERROR,
    "token_budget": FinalStatus.TOKEN_BUDGET_EXCEEDED,
    "cost_budget": FinalStatus.COST_BUDGET_EXCEEDED,
}


def decide_status(state: UnitState, options: RunOptions) -> tuple[FinalStatus, float | None]:
    """Execution facts first (setup/pre_run errors, timeouts, crashes, budgets), then the verdict."""
    if state.status is not None:
        return state.status, 0.0
    if state.phase.outcome in _PHASE_STATUS:
        return _PHASE_STATUS[state.phase.outcome], 0.0
    if not options.grade or state.grade is None:
        return FinalStatus.NOT_GRADED, None
    status = state.grade.status
    if status is FinalStatus.ERROR:
        return status, 0.0
    if status is FinalStatus.FAILURE and state.phase.max_turns_exhausted:
        status = FinalStatus.MAX_TURNS_EXHAUSTED
    return status, state.grade.weighted_score


def _diagnostics(state: UnitState) -> list[CriterionResult]:
    """Every criterion, in order: read-only file checks evaluated, the rest marked not evaluated."""
    if state.diagnostics is None:
        return []
    evaluated = iter(state.diagnostics.results)
    out: list[CriterionResult] = []
    for spec in state.unit.task.definition.success_criteria:
        if spec.runs_after_failure:
            out.append(next(evaluated))
        else:
            out.append(
                CriterionResult(
                    criterion_type=spec.type,
                    description=spec.description,
                    evaluation_status="not_evaluated",
                    details="not run after an agent failure",
                    pass_threshold=spec.pass_threshold,
                    weight=spec.weight,
                    gating=spec.is_gating,
                )
            )
    return out


def _efficiency(state: UnitState, grade: Grade | None) -> tuple[int | None, float | None]:
    """(expected tool calls, efficiency): a commands_efficiency criterion's, else the task's own budget."""
    definition = state.unit.task.definition
    for i, spec in enumerate(definition.success_criteria):
        if isinstance(spec, CommandsEfficiencyCriterion):
            score = grade.results[i].score if grade is not None else None
            return spec.expected_commands, score
    expected = definition.expected_commands
    if expected is None or not state.phase.turns:
        return expected, None
    actual = sum(len(t.commands) for t in state.phase.turns)
    return expected, expected / max(actual, expected)


def _error_message(state: UnitState) -> str | None:
    if state.error:
        return state.error
    if state.phase.error:
        return state.phase.error
    if state.grade is not None and state.grade.problems:
        return "; ".join(state.grade.problems)
    return None


def _spend(state: UnitState, purpose: Literal["judge", "simulator"]) -> float | None:
    return state.judges.spend.get(purpose).total_cost if state.judges is not None else None


def _spend_usage(state: UnitState, purpose: Literal["judge", "simulator"]) -> TokenUsage | None:
    """Tokens and cost of one purpose's model calls; None when none was made (not the same as unpriced)."""
    spend = state.judges.spend.get(purpose) if state.judges is not None else None
    if spend is None or spend.calls == 0:
        return None
    return TokenUsage(
        uncached_input_tokens=spend.input_tokens, output_tokens=spend.output_tokens, total_cost_usd=spend.total_cost
    )


SCRIPT_LABEL = "script"
"""`model_used` of a unit the scripted model answered (-b script)."""

_agent_dumps: SharedDerived[dict[str, Any]] = SharedDerived()


def build_result(state: UnitState, options: RunOptions, out_dir: Path, task_config: dict[str, Any]) -> EvaluationResult:
    unit, turns = state.unit, state.phase.turns
    status, score = decide_status(state, options)
    expected, efficiency = _efficiency(state, state.grade)
    models = [t.model_used for t in turns if t.model_used]
    model_used = models[-1] if models else unit.agent.model
    if options.gateway_spec is not None and options.gateway_spec.backend == "script":
        # The scripted model answered, whatever name the agent's CLI reports for its configured model.
        if model_used and model_used != SCRIPT_LABEL:
            state.env_info["agent_reported_model"] = model_used
        model_used = SCRIPT_LABEL
    agent_dump = _agent_dumps.get(unit.agent, compute=lambda: unit.agent.model_dump(mode="json"))
    if state.judges is not None:
        state.env_info.update(state.judges.info)
    result = EvaluationResult(
        task_id=unit.task_id,
        task_description=unit.task.definition.description,
        variant_id=unit.variant_id,
        suite_id=unit.task.suite_id,
        row_id=unit.task.row_id,
        replicate_index=unit.replicate_index,
        tags=list(unit.task.definition.tags),
        task_path=str(unit.task.source_file),
        agent_type=unit.agent.type,
        model_used=model_used,
        started_at=state.started,
        completed_at=datetime.now(UTC),
        duration_seconds=time.monotonic() - state.clock,
        final_status=status,
        weighted_score=score,
        max_turns_exhausted=state.phase.max_turns_exhausted,
        iteration_count=len(turns),
        success_criteria_results=state.grade.results if state.grade else [],
        post_failure_criteria_results=_diagnostics(state),
        iterations=turns,
        error_message=with_network_reason(_error_message(state), status, state.network),
        environment_info=state.env_info,
        agent_config=agent_dump,
        sdk_options=agent_dump.get("sdk_options"),
        sandbox_path=str(state.sandbox_path) if state.sandbox_path else None,
        task_config=task_config,
        config_fingerprint=unit_fingerprint(unit),
        secrets_in_artifacts=state.secret_hits,
        reference_copies=state.reference_copies,
        total_token_usage=total_usage(turns),
        command_stats=CommandStatistics.from_turns(turns),
        total_assistant_turns=sum(t.assistant_turn_count for t in turns),
        expected_commands=expected,
        actual_commands=sum(len(t.commands) for t in turns),
        commands_efficiency=efficiency,
        pre_run_results=state.pre_run,
        post_run_results=state.post_run,
        judge_cost_usd=_spend(state, "judge"),
        simulator_cost_usd=_spend(state, "simulator"),
        judge_token_usage=_spend_usage(state, "judge"),
        simulator_token_usage=_spend_usage(state, "simulator"),
        simulation=state.simulation,
        early_stop=state.early_stop,
        network=state.network,
    )
    state.log.add(f"final status {status.value}, weighted score {score if score is None else round(score, 4)}")
    write_records(out_dir, result, "\n".join(state.log.lines) + "\n")
    return result


def write_records(out_dir: Path, result: EvaluationResult, log_text: str) -> None:
    """task.log first, task.json last: a task.json on disk means the unit is finished."""
    write_text_atomic(out_dir / TASK_LOG, log_text)  # the atomic writer redacts credentials
    write_text_atomic(out_dir / TASK_JSON, result.model_dump_json(indent=2))
