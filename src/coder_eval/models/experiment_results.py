"""Experiment records: variant.json (`VariantAggregate`) and experiment.json (`ExperimentResult`).

Only counts, means, pass@k / pass^k point estimates and raw per-replicate scores are stored.
Confidence intervals and significance tests are computed when a report is rendered (see
`coder_eval.experiments.stats`), so a consumer that wants them recomputes them from
`per_replicate_scores` (and the replicate statuses in `task_summaries`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, computed_field

from coder_eval.models.adaptive import AdaptiveRecord
from coder_eval.models.base import RecordModel
from coder_eval.models.run import nothing_was_measured
from coder_eval.models.status import FinalStatus


class PassKEstimate(RecordModel):
    """An arm's pass@k and pass^k at one k: the mean over its tasks of the unbiased per-task estimates.

    Computed from the replicate statuses (`coder_eval.experiments.passk`); tasks with fewer than
    k graded replicates are left out and counted in `tasks_excluded`.
    """

    k: int = Field(description="Tries per task.")
    pass_at_k: float = Field(description="Mean over tasks of 1 - C(n-c,k)/C(n,k): at least one of k tries succeeds.")
    pass_hat_k: float = Field(description="Mean over tasks of C(c,k)/C(n,k): all k tries succeed.")
    tasks: int = Field(description="Tasks with at least k graded replicates (the mean is over these).")
    tasks_excluded: int = Field(0, description="Tasks with fewer than k graded replicates, left out.")


class VariantAggregate(RecordModel):
    """Cross-task rollup of one variant; every replicate row counts once.

    `tasks_succeeded + tasks_failed + tasks_error + tasks_not_graded == tasks_run`.
    """

    variant_id: str = Field(description="The variant.")
    tasks_run: int = Field(0, description="Rows run under this variant (replicates count once each).")
    tasks_succeeded: int = Field(0, description="Rows with status SUCCESS.")
    tasks_failed: int = Field(0, description="Rows that failed.")
    tasks_error: int = Field(0, description="Rows that ended in an error.")
    tasks_not_graded: int = Field(0, description="Rows executed but not graded.")
    tasks_measured: int = Field(0, description="Rows that carry a weighted score.")
    average_score: float | None = Field(
        None, description="Mean weighted score over measured rows; None when none was measured."
    )
    average_duration: float | None = Field(None, description="Mean row duration in seconds.")
    total_tokens: int = Field(0, description="Tokens over every row.")
    replicate_count: int = Field(0, description="Highest replicate count of any task under this variant.")
    tasks_token_budget_exceeded: int = Field(0, description="Rows stopped by their token budget.")
    tasks_cost_budget_exceeded: int = Field(0, description="Rows stopped by their cost budget.")
    pass_k: list[PassKEstimate] = Field(
        default_factory=list,
        description="pass@k and pass^k for k = 1, 2, 3, 5, 10, ... up to the replicates (point estimates).",
    )

    @property
    def tasks_graded(self) -> int:
        """Rows a verdict was reached on: the denominator of the pass rate."""
        return self.tasks_run - self.tasks_not_graded

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float | None:
        """Succeeded over graded rows; None when that is 0/0 or nothing carried a score."""
        if self.tasks_graded == 0 or nothing_was_measured(measured=self.tasks_measured):
            return None
        return self.tasks_succeeded / self.tasks_graded


class VariantResult(RecordModel):
    """One replicate of one task under one variant, as the experiment summary shows it."""

    variant_id: str = Field(description="The variant.")
    task_id: str = Field(description="The task.")
    weighted_score: float | None = Field(None, description="The row's weighted score; None when unscored.")
    final_status: FinalStatus = Field(description="The row's status.")
    duration_seconds: float = Field(0.0, description="The row's duration.")
    total_tokens: int = Field(0, description="The row's tokens.")
    iteration_count: int = Field(0, description="Turns sent to the agent.")
    total_assistant_turns: int = Field(0, description="Assistant messages over all turns.")
    reference_similarity: float | None = Field(
        None, description="Mean reference_comparison score, when the task has one."
    )
    replicate_index: int = Field(0, description="Which replicate, from 0.")
    replicate_count: int = Field(1, description="Replicates of this task under this variant.")


class TaskExperimentSummary(RecordModel):
    """How every variant did on one task.

    `best_variant` is the variant with the highest mean score over its measured replicates; it is
    None when nothing was measured or when the top means tie (`is_tie`). `score_spread` is the
    highest variant mean minus the lowest.
    """

    task_id: str = Field(description="The task.")
    variant_results: list[VariantResult] = Field(
        default_factory=list, description="Every replicate of the task under every variant."
    )
    best_variant: str | None = Field(
        None, description="Variant with the highest mean score; None on a tie or when nothing was measured."
    )
    is_tie: bool = Field(False, description="True when the top means are equal.")
    score_spread: float | None = Field(None, description="Highest variant mean minus the lowest.")
    replicate_count: int = Field(0, description="Most replicates any variant ran of this task.")

    def scores_for(self, variant_id: str) -> list[float]:
        """Measured scores of one variant on this task, in replicate order."""
        rows = sorted((r for r in self.variant_results if r.variant_id == variant_id), key=lambda r: r.replicate_index)
        return [r.weighted_score for r in rows if r.weighted_score is not None]

    def unmeasured_count(self, variant_id: str) -> int:
        """Replicates of one variant on this task that carry no score."""
        return sum(1 for r in self.variant_results if r.variant_id == variant_id and r.weighted_score is None)


class QuarantinedTask(RecordModel):
    """A task the experiment file quarantined: how it counts in the statistics and verdict."""

    task_id: str = Field(description="The task.")
    mode: Literal["exclude", "weight"] = Field(description="`exclude` (left out) or `weight` (counted at `weight`).")
    weight: float = Field(0.0, description="Its weight in the statistics: 0 when excluded.")
    reason: str = Field("", description="Why it is quarantined, from the experiment file.")
    in_run: bool = Field(True, description="False when no unit of the run had this task.")

    def describe(self) -> str:
        how = "excluded" if self.mode == "exclude" else f"weight {self.weight:g}"
        return how + ("" if self.in_run else ", not in this run")


class ExperimentResult(RecordModel):
    """The cross-variant summary of an experiment run (experiment.json)."""

    experiment_id: str = Field(description="The experiment.")
    description: str = Field("", description="What the experiment measures.")
    variant_ids: list[str] = Field(default_factory=list, description="The variants, in file order.")
    task_summaries: list[TaskExperimentSummary] = Field(
        default_factory=list, description="Per task, how every variant did."
    )
    variant_aggregates: dict[str, VariantAggregate] = Field(
        default_factory=dict, description="Variant id -> its rollup over every task."
    )
    total_duration_seconds: float = Field(0.0, description="Wall-clock duration of the run.")
    per_replicate_scores: dict[str, dict[str, list[float]]] = Field(
        default_factory=dict,
        description="Variant id -> task id -> measured scores in replicate order (for statistics).",
    )
    quarantine: list[QuarantinedTask] = Field(
        default_factory=list,
        description="Tasks the experiment quarantined; the statistics and verdict leave them out or weight them.",
    )

    def task_weights(self) -> dict[str, float]:
        """Task id -> its weight in the statistics, for quarantined tasks only (every other task weighs 1)."""
        return {q.task_id: q.weight for q in self.quarantine}

    adaptive: AdaptiveRecord | None = Field(
        None,
        description="For a run with adaptive replicates: the stopping rule of every task and the units spent "
        "against the fixed design (the verdict then also needs the sequential test).",
    )
