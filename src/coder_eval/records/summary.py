"""Build the run summary (run.json) from task results: one builder for live runs and `aggregate`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter

from coder_eval import __version__
from coder_eval.models.results import EvaluationResult, RecordNotes
from coder_eval.models.run import RowStats, RunSummary, SkippedTask, sum_costs
from coder_eval.models.status import FinalStatus
from coder_eval.models.turns import agent_turns, expected_turns, has_final_reply, installed_tools, visible_turns
from coder_eval.records.legacy import conversion_lines


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


class SummaryBuilder:
    """run.json's counts and figures, gathered from results taken one at a time in row order.

    `add` returns each result's row; `build_run_summary` keeps them all, a streamed run.json
    writes each out as it comes and keeps only the counts (see `RunSummary.with_streamed_rows`).
    """

    def __init__(self) -> None:
        self.stats = RowStats()
        self.by_category = {"succeeded": 0, "failed": 0, "error": 0, "ungraded": 0}
        self.token_budget = 0
        self.cost_budget = 0
        self.first_start: datetime | None = None
        self.last_end: datetime | None = None
        self.notes: list[RecordNotes] = []
        """Notes of results read from another format, for run.json's `record_conversions`."""

    def add(self, result: EvaluationResult) -> dict[str, Any]:
        started, ended = result.started_at, result.completed_at or result.started_at
        self.first_start = started if self.first_start is None else min(self.first_start, started)
        self.last_end = ended if self.last_end is None else max(self.last_end, ended)
        self.by_category[result.final_status.category] += 1
        self.token_budget += result.final_status is FinalStatus.TOKEN_BUDGET_EXCEEDED
        self.cost_budget += result.final_status is FinalStatus.COST_BUDGET_EXCEEDED
        row = task_row(result)
        self.stats.add(row)
        if result.record_notes is not None:
            self.notes.append(result.record_notes)
        return row

    def summary(
        self,
        run_id: str,
        task_results: list[dict[str, Any]] | None,
        *,
        skipped: list[SkippedTask] | None = None,
        start_time: datetime | None = None,
        end_time: datetime | None = None,
        max_parallel: int = 1,
        environment_info: dict[str, Any] | None = None,
    ) -> RunSummary:
        """The summary; with `task_results` None its rows were streamed and its figures come from `stats`."""
        now = datetime.now(UTC)
        start = start_time or self.first_start or now
        end = end_time or self.last_end or now
        summary = RunSummary(
            run_id=run_id,
            start_time=start,
            end_time=end,
            total_duration_seconds=max(0.0, (end - start).total_seconds()),
            tasks_run=sum(self.by_category.values()),
            tasks_succeeded=self.by_category["succeeded"],
            tasks_failed=self.by_category["failed"],
            tasks_error=self.by_category["error"],
            tasks_not_graded=self.by_category["ungraded"],
            tasks_token_budget_exceeded=self.token_budget,
            tasks_cost_budget_exceeded=self.cost_budget,
            skipped_tasks=list(skipped or []),
            max_parallel=max_parallel,
            task_results=task_results or [],
            framework_version=__version__,
            environment_info=dict(environment_info or {}),
            record_conversions=conversion_lines(self.notes),
        )
        return summary if task_results is not None else summary.with_streamed_rows(self.stats)


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
    builder = SummaryBuilder()
    rows = [builder.add(r) for r in sorted(results, key=lambda r: (r.variant_id, r.task_id, r.replicate_index))]
    return builder.summary(
        run_id,
        rows,
        skipped=skipped,
        start_time=start_time,
        end_time=end_time,
        max_parallel=max_parallel,
        environment_info=environment_info,
    )


# --- run.json as a stream -----------------------------------------------------------------------

_ROW_ADAPTER: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])


def nested_json(text: str) -> str:
    """A JSON value (indented by 2) as it reads inside a top-level list of an indented document."""
    return text.replace("\n", "\n    ")


def row_json(row: dict[str, Any]) -> str:
    """A row as it appears inside run.json (indented two levels), for `run_json_chunks`."""
    return nested_json(_ROW_ADAPTER.dump_json(row, indent=2).decode("utf-8"))


def list_spliced_chunks(text: str, key: str, items: Iterable[str]) -> Iterator[str]:
    """`text` (a record dumped with indent=2 whose top-level list `key` is empty) with `items` in that list.

    Each item is one element as `nested_json` gives it. The result is the dump of the record
    holding those elements, so a long list can be written from a spool.
    """
    marker = f'\n  "{key}": []'
    head, tail = text.split(marker, 1)  # a key at this depth occurs once: strings hold no raw newline
    yield head
    yield f'\n  "{key}": ['
    empty = True
    for item in items:
        yield ("\n    " if empty else ",\n    ") + item
        empty = False
    yield "]" if empty else "\n  ]"
    yield tail


def run_json_chunks(summary: RunSummary, rows: Iterable[str]) -> Iterator[str]:
    """run.json in pieces: `summary` without rows, then `rows` (each from `row_json`, in row order).

    Joined, the pieces are `summary.model_dump_json(indent=2)` of the summary holding those rows.
    """
    bare = summary.with_streamed_rows(summary.row_stats()).model_copy(update={"task_results": []})
    return list_spliced_chunks(bare.model_dump_json(indent=2), "task_results", rows)
