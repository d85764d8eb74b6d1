"""The run-level summary (run.json). Rates and cost totals are computed, never stored."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import Field, PrivateAttr, computed_field

from coder_eval.models.base import RecordModel


def nothing_was_measured(*, measured: int) -> bool:
    """True when no row carries a score, so a rate would be 0/0 (unknown, not 0%)."""
    return measured == 0


def sum_costs(values: Sequence[float | None]) -> float | None:
    """Sum priced values; None when nothing at all was priced (unpriced is not free)."""
    priced = [v for v in values if v is not None]
    return sum(priced) if priced else None


@dataclass
class RowStats:
    """The run-wide figures run.json derives from its rows, gathered one row at a time.

    A summary whose rows were written out as a stream (a long run keeps none of them in memory)
    carries these instead of its rows; either way the computed fields below come from here.
    Costs are kept as the priced values in row order, so their sums are the same either way.
    """

    measured: int = 0
    total_costs: list[float] = field(default_factory=list)
    agent_costs: list[float] = field(default_factory=list)
    judge_costs: list[float] = field(default_factory=list)
    simulator_costs: list[float] = field(default_factory=list)
    judges_ran: bool = False
    simulator_ran: bool = False
    cost_incomplete: int = 0

    def add(self, row: Mapping[str, Any]) -> None:
        if row.get("weighted_score") is not None:
            self.measured += 1
        columns = (
            ("total_cost_usd", self.total_costs),
            ("agent_cost_usd", self.agent_costs),
            ("judge_cost_usd", self.judge_costs),
            ("simulator_cost_usd", self.simulator_costs),
        )
        for key, column in columns:
            value = row.get(key)
            if value is not None:
                column.append(value)
        self.judges_ran = self.judges_ran or bool(row.get("judge_ran", row.get("judge_cost_usd") is not None))
        self.simulator_ran = self.simulator_ran or bool(
            row.get("simulator_ran", row.get("simulator_cost_usd") is not None)
        )
        if not row.get("cost_complete", True):
            self.cost_incomplete += 1

    @classmethod
    def of(cls, rows: Iterable[Mapping[str, Any]]) -> RowStats:
        stats = cls()
        for row in rows:
            stats.add(row)
        return stats


class SkippedTask(RecordModel):
    path: str = Field(description="The task file that was not run.")
    reason: str = Field(description="Why it was not run (invalid, skip: true, filtered out).")


class RunSummary(RecordModel):
    """Flat run summary: counts, per-row digests, and derived rates and costs."""

    run_id: str = Field(description="Run id (the run directory's name).")
    start_time: datetime = Field(description="When the run started.")
    end_time: datetime = Field(description="When the run ended.")
    total_duration_seconds: float = Field(0.0, description="Wall-clock duration of the run.")
    tasks_run: int = Field(0, description="Rows run (every task, dataset row and replicate counts once).")
    tasks_succeeded: int = Field(0, description="Rows with status SUCCESS.")
    tasks_failed: int = Field(0, description="Rows that failed (FAILURE, TIMEOUT, turn or budget limits).")
    tasks_error: int = Field(0, description="Rows that ended ERROR or BUILD_FAILED.")
    tasks_not_graded: int = Field(0, description="Rows executed but not graded (NOT_GRADED).")
    tasks_token_budget_exceeded: int = Field(0, description="Rows stopped by their token budget.")
    tasks_cost_budget_exceeded: int = Field(0, description="Rows stopped by their cost budget.")
    skipped_tasks: list[SkippedTask] = Field(
        default_factory=list, description="Task files that were not run, with the reason."
    )
    max_parallel: int = Field(1, description="How many rows ran at the same time.")
    task_results: list[dict[str, Any]] = Field(
        default_factory=list, description="One digest per row: ids, status, score, tokens, cost, duration."
    )
    framework_version: str = Field("", description="Coder Eval version that wrote the run.")
    environment_info: dict[str, Any] = Field(
        default_factory=dict, description="Python version and platform of the run."
    )
    units_planned: int | None = Field(
        None, description="Units the run set out to do (tasks x variants x replicates), resumed ones included."
    )
    units_finished: int | None = Field(None, description="Units with a record when run.json was written.")
    units_fixed_design: int | None = Field(
        None,
        description="Adaptive replicates only: the units the fixed design (max_repeats × tasks × arms) would run; "
        "units_planned is what the adaptive rounds scheduled.",
    )
    interrupted: bool = Field(False, description="The run stopped (signal, interrupt) before every planned unit ran.")
    interrupt_reason: str | None = Field(
        None, description="Why the run stopped early when it was not a signal (e.g. the --max-cost-usd limit)."
    )
    record_conversions: list[str] = Field(
        default_factory=list,
        description="Records read from another format (the reference system's): what was mapped and what was not.",
    )

    def progress_note(self) -> str | None:
        """One sentence for reports when the run is partial, else None."""
        if not self.interrupted and (self.units_planned is None or self.units_finished == self.units_planned):
            return None
        done = self.units_finished if self.units_finished is not None else self.tasks_run
        planned = "?" if self.units_planned is None else str(self.units_planned)
        why = f" ({self.interrupt_reason})" if self.interrupt_reason else ""
        return f"Interrupted: {done} of {planned} planned units finished{why}; figures cover only those."

    def adaptive_note(self) -> str | None:
        """For adaptive replicates: the units run against the fixed design's, else None."""
        fixed = self.units_fixed_design
        if not fixed:
            return None
        spent = self.units_finished if self.units_finished is not None else self.tasks_run
        return (
            f"Adaptive replicates: {spent} units run of the fixed design's {fixed} ({1 - spent / fixed:.0%} saved); "
            "experiment.md says which rule stopped each task."
        )

    @property
    def tasks_graded(self) -> int:
        return self.tasks_run - self.tasks_not_graded

    _streamed: RowStats | None = PrivateAttr(default=None)

    def with_streamed_rows(self, stats: RowStats) -> RunSummary:
        """This summary standing for rows written elsewhere (run.json's stream): figures from `stats`."""
        copy = self.model_copy()
        copy._streamed = stats
        return copy

    def row_stats(self) -> RowStats:
        return self._streamed if self._streamed is not None else RowStats.of(self.task_results)

    @property
    def tasks_measured(self) -> int:
        return self.row_stats().measured

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float | None:
        if self.tasks_graded == 0 or nothing_was_measured(measured=self.tasks_measured):
            return None
        return self.tasks_succeeded / self.tasks_graded

    @computed_field  # type: ignore[prop-decorator]
    @property
    def error_share(self) -> float | None:
        if self.tasks_graded == 0 or nothing_was_measured(measured=self.tasks_measured):
            return None
        return self.tasks_error / self.tasks_graded

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_cost_usd(self) -> float | None:
        return sum_costs(self.row_stats().total_costs)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def agent_cost_usd(self) -> float | None:
        return sum_costs(self.row_stats().agent_costs)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge_cost_usd(self) -> float | None:
        return sum_costs(self.row_stats().judge_costs)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def simulator_cost_usd(self) -> float | None:
        return sum_costs(self.row_stats().simulator_costs)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judges_ran(self) -> bool:
        """Whether any judge called a model (so a missing judge cost means unpriced, not none)."""
        return self.row_stats().judges_ran

    @computed_field  # type: ignore[prop-decorator]
    @property
    def simulator_ran(self) -> bool:
        """Whether any simulated user called a model."""
        return self.row_stats().simulator_ran

    @computed_field  # type: ignore[prop-decorator]
    @property
    def eval_overhead_cost_usd(self) -> float | None:
        stats = self.row_stats()
        return sum_costs([*stats.judge_costs, *stats.simulator_costs])

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tasks_cost_incomplete(self) -> int:
        return self.row_stats().cost_incomplete

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cost_complete(self) -> bool:
        return self.tasks_cost_incomplete == 0
