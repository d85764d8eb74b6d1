"""Experiment records: variant.json (`VariantAggregate`) and experiment.json (`ExperimentResult`).

Only counts, means and raw per-replicate scores are stored. Confidence intervals and significance
tests are computed when a report is rendered (see `coder_eval.experiments.stats`), so a consumer
that wants them recomputes them from `per_replicate_scores`.
"""

from __future__ import annotations

from pydantic import Field, computed_field

from coder_eval.models.base import RecordModel
from coder_eval.models.run import nothing_was_measured
from coder_eval.models.status import FinalStatus


class VariantAggregate(RecordModel):
    """Cross-task rollup of one variant; every replicate row counts once.

    `tasks_succeeded + tasks_failed + tasks_error + tasks_not_graded == tasks_run`.
    """

    variant_id: str
    tasks_run: int = 0
    tasks_succeeded: int = 0
    tasks_failed: int = 0
    tasks_error: int = 0
    tasks_not_graded: int = 0
    tasks_measured: int = 0
    average_score: float | None = None
    average_duration: float | None = None
    total_tokens: int = 0
    replicate_count: int = 0
    tasks_token_budget_exceeded: int = 0
    tasks_cost_budget_exceeded: int = 0

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

    variant_id: str
    task_id: str
    weighted_score: float | None = None
    final_status: FinalStatus
    duration_seconds: float = 0.0
    total_tokens: int = 0
    iteration_count: int = 0
    total_assistant_turns: int = 0
    reference_similarity: float | None = None
    replicate_index: int = 0
    replicate_count: int = 1


class TaskExperimentSummary(RecordModel):
    """How every variant did on one task.

    `best_variant` is the variant with the highest mean score over its measured replicates; it is
    None when nothing was measured or when the top means tie (`is_tie`). `score_spread` is the
    highest variant mean minus the lowest.
    """

    task_id: str
    variant_results: list[VariantResult] = Field(default_factory=list)
    best_variant: str | None = None
    is_tie: bool = False
    score_spread: float | None = None
    replicate_count: int = 0

    def scores_for(self, variant_id: str) -> list[float]:
        """Measured scores of one variant on this task, in replicate order."""
        rows = sorted((r for r in self.variant_results if r.variant_id == variant_id), key=lambda r: r.replicate_index)
        return [r.weighted_score for r in rows if r.weighted_score is not None]

    def unmeasured_count(self, variant_id: str) -> int:
        """Replicates of one variant on this task that carry no score."""
        return sum(1 for r in self.variant_results if r.variant_id == variant_id and r.weighted_score is None)


class ExperimentResult(RecordModel):
    """The cross-variant summary of an experiment run (experiment.json)."""

    experiment_id: str
    description: str = ""
    variant_ids: list[str] = Field(default_factory=list)
    task_summaries: list[TaskExperimentSummary] = Field(default_factory=list)
    variant_aggregates: dict[str, VariantAggregate] = Field(default_factory=dict)
    total_duration_seconds: float = 0.0
    per_replicate_scores: dict[str, dict[str, list[float]]] = Field(default_factory=dict)
