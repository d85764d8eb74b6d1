"""Build the run summary (run.json) from task results: one builder for live runs and `aggregate`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from coder_eval import __version__
from coder_eval.models.results import EvaluationResult
from coder_eval.models.run import RunSummary, SkippedTask, sum_costs
from coder_eval.models.status import FinalStatus
from coder_eval.models.turns import agent_turns, expected_turns, has_final_reply, installed_tools, visible_turns


def _agent_cost(result: EvaluationResult) -> float | None:
    usage = result.total_token_usage
    if usage.total_cost_usd is not None:
        return usage.total_cost_usd
    return 0.0 if usage.total_tokens == 0 else None


def task_row(result: EvaluationResult) -> dict[str, Any]:
    """The flat per-replicate row of run.json; task.json stays the typed source of truth."""
    usage = result.total_token_usage
    agent_cost = _agent_cost(result)
    total_cost = sum_costs([agent_cost, result.judge_cost_usd, result.simulator_cost_usd])
    cost_complete = agent_cost is not None
    return {
        "task_id": result.task_id,
        "suite_id": result.suite_id,
        "row_id": result.row_id,
        "replicate_index": result.replicate_index,
        "variant_id": result.variant_id,
        "status": result.final_status.value,
        "weighted_score": result.weighted_score,
        "duration": result.duration_seconds,
        "iteration_count": result.iteration_count,
        "tags": list(result.tags),
        "task_path": result.task_path,
        "model_used": result.model_used,
        "agent_type": result.agent_type,
        "reference_similarity": result.reference_similarity,
        "input_tokens": usage.uncached_input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "total_tokens": usage.total_tokens,
        "total_cost_usd": total_cost,
        "agent_cost_usd": agent_cost,
        "judge_cost_usd": result.judge_cost_usd,
        "simulator_cost_usd": result.simulator_cost_usd,
        "judge_ran": result.judge_token_usage is not None or result.judge_cost_usd is not None,
        "simulator_ran": result.simulator_token_usage is not None or result.simulator_cost_usd is not None,
        "cost_complete": cost_complete,
        "expected_commands": result.expected_commands,
        "actual_commands": result.actual_commands,
        "commands_efficiency": result.commands_efficiency,
        "agent_config": result.agent_config,
        "sdk_options": result.sdk_options,
        "installed_tools": installed_tools(result),
        "total_turns": agent_turns(result),
        "visible_turns": visible_turns(result),
        "expected_turns": expected_turns(result),
        "max_turns_exhausted": result.max_turns_exhausted,
        "has_final_reply": has_final_reply(result),
        "stopped_early": result.early_stop is not None,
        "early_stop_reason": result.early_stop.reason if result.early_stop else None,
        "turns_remaining_at_stop": result.early_stop.turns_remaining_at_stop if result.early_stop else None,
        "error_message": result.error_message,
        "iterations": [
            {
                "iteration": t.iteration,
                "duration_seconds": t.duration_seconds,
                "command_count": len(t.commands),
                "assistant_turn_count": t.assistant_turn_count,
                "crashed": t.crashed,
                "crash_reason": t.crash_reason,
            }
            for t in result.iterations
        ],
    }


def build_run_summary(
    run_id: str,
    results: list[EvaluationResult],
    *,
    skipped: list[SkippedTask] | None = None,
    start_time: datetime | None = None,
    end_time: datetime | None = None,
    max_parallel: int = 1,
    environment_info: dict[str, Any] | None = None,
) -> RunSummary:
    """Count statuses by category and denormalise each result into a row."""
    ordered = sorted(results, key=lambda r: (r.variant_id, r.task_id, r.replicate_index))
    starts = [r.started_at for r in ordered]
    ends = [r.completed_at or r.started_at for r in ordered]
    now = datetime.now(UTC)
    start = start_time or (min(starts) if starts else now)
    end = end_time or (max(ends) if ends else now)
    by_category = {"succeeded": 0, "failed": 0, "error": 0, "ungraded": 0}
    for r in ordered:
        by_category[r.final_status.category] += 1
    return RunSummary(
        run_id=run_id,
        start_time=start,
        end_time=end,
        total_duration_seconds=max(0.0, (end - start).total_seconds()),
        tasks_run=len(ordered),
        tasks_succeeded=by_category["succeeded"],
        tasks_failed=by_category["failed"],
        tasks_error=by_category["error"],
        tasks_not_graded=by_category["ungraded"],
        tasks_token_budget_exceeded=sum(r.final_status is FinalStatus.TOKEN_BUDGET_EXCEEDED for r in ordered),
        tasks_cost_budget_exceeded=sum(r.final_status is FinalStatus.COST_BUDGET_EXCEEDED for r in ordered),
        skipped_tasks=list(skipped or []),
        max_parallel=max_parallel,
        task_results=[task_row(r) for r in ordered],
        framework_version=__version__,
        environment_info=dict(environment_info or {}),
    )
