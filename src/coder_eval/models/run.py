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
    path: str
    reason: str


class RunSummary(RecordModel):
    """Flat run summary: counts, per-row digests, and derived rates and costs."""

    run_id: str
    start_time: datetime
    end_time: datetime
    total_duration_seconds: float = 0.0
    tasks_run: int = 0
    tasks_succeeded: int = 0
    tasks_failed: int = 0
    tasks_error: int = 0
    tasks_not_graded: int = 0
    tasks_token_budget_exceeded: int = 0
    tasks_cost_budget_exceeded: int = 0
    skipped_tasks: list[SkippedTask] = Field(default_factory=list)
    max_parallel: int = 1
    task_results: list[dict[str, Any]] = Field(default_factory=list)
    framework_version: str = ""
    environment_info: dict[str, Any] = Field(default_factory=dict)

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
