"""The run-level summary (run.json). Rates and cost totals are computed, never stored."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field, computed_field

from coder_eval.models.base import RecordModel


def nothing_was_measured(*, measured: int) -> bool:
    """True when no row carries a score, so a rate would be 0/0 (unknown, not 0%)."""
    return measured == 0


def sum_costs(values: list[float | None]) -> float | None:
    """Sum priced values; None when nothing at all was priced (unpriced is not free)."""
    priced = [v for v in values if v is not None]
    return sum(priced) if priced else None


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
    interrupted: bool = Field(False, description="The run stopped (signal, interrupt) before every planned unit ran.")

    def progress_note(self) -> str | None:
        """One sentence for reports when the run is partial, else None."""
        if not self.interrupted and (self.units_planned is None or self.units_finished == self.units_planned):
            return None
        done = self.units_finished if self.units_finished is not None else self.tasks_run
        planned = "?" if self.units_planned is None else str(self.units_planned)
        return f"Interrupted: {done} of {planned} planned units finished; figures cover only those."

    @property
    def tasks_graded(self) -> int:
        return self.tasks_run - self.tasks_not_graded

    @property
    def tasks_measured(self) -> int:
        return sum(1 for row in self.task_results if row.get("weighted_score") is not None)

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
        return sum_costs([row.get("total_cost_usd") for row in self.task_results])

    @computed_field  # type: ignore[prop-decorator]
    @property
    def agent_cost_usd(self) -> float | None:
        return sum_costs([row.get("agent_cost_usd") for row in self.task_results])

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge_cost_usd(self) -> float | None:
        return sum_costs([row.get("judge_cost_usd") for row in self.task_results])

    @computed_field  # type: ignore[prop-decorator]
    @property
    def simulator_cost_usd(self) -> float | None:
        return sum_costs([row.get("simulator_cost_usd") for row in self.task_results])

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judges_ran(self) -> bool:
        """Whether any judge called a model (so a missing judge cost means unpriced, not none)."""
        return any(row.get("judge_ran", row.get("judge_cost_usd") is not None) for row in self.task_results)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def simulator_ran(self) -> bool:
        """Whether any simulated user called a model."""
        return any(row.get("simulator_ran", row.get("simulator_cost_usd") is not None) for row in self.task_results)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def eval_overhead_cost_usd(self) -> float | None:
        return sum_costs(
            [row.get("judge_cost_usd") for row in self.task_results]
            + [row.get("simulator_cost_usd") for row in self.task_results]
        )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tasks_cost_incomplete(self) -> int:
        return sum(1 for row in self.task_results if not row.get("cost_complete", True))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cost_complete(self) -> bool:
        return self.tasks_cost_incomplete == 0
