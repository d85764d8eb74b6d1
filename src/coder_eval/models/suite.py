"""Dataset-suite rollups: what suite.json holds (one per variant and suite)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, computed_field

from coder_eval.models.base import RecordModel
from coder_eval.models.experiment_results import PassKEstimate
from coder_eval.models.run import nothing_was_measured

FAILED_SAMPLES_CAP = 20
"""At most this many failed rows are listed in a rollup."""


class ThresholdCheck(RecordModel):
    """One `suite_thresholds` entry checked against the aggregated metric of the same name."""

    metric: str = Field(description="Metric the threshold applies to.")
    min_value: float = Field(description="Smallest passing value.")
    actual_value: float | None = Field(
        None, description="The metric's value; None when it was not produced (the check then fails)."
    )
    passed: bool = Field(description="Whether the metric reached the threshold.")


class CriterionAggregate(RecordModel):
    """One criterion's metrics over the rows of a suite, and its suite gates."""

    criterion_type: str = Field(description="The criterion's type.")
    description: str = Field("", description="The criterion's description.")
    rows_total: int = Field(0, description="Rows in the suite.")
    rows_excluded: int = Field(
        0, description="Rows where this criterion was not evaluated or is missing; they feed no metric."
    )
    metrics: dict[str, float] = Field(
        default_factory=dict, description="Metric name -> value (mean score, accuracy, precision, ...)."
    )
    threshold_checks: list[ThresholdCheck] = Field(
        default_factory=list, description="The criterion's suite_thresholds, checked."
    )
    passed: bool = Field(True, description="True when every threshold check passed.")
    details: dict[str, Any] = Field(
        default_factory=dict,
        description="Extras for rendering; for classification: `labels`, `per_label`, `confusion`.",
    )
    error: str | None = Field(None, description="Why the aggregate could not be computed, if so.")


class CriterionStat(RecordModel):
    """A one-line summary of one criterion across the suite's rows."""

    criterion_type: str = Field(description="The criterion's type.")
    rows_evaluated: int = Field(0, description="Rows where the criterion was evaluated.")
    average_score: float | None = Field(None, description="Mean score over those rows; None when there were none.")
    error_count: int = Field(0, description="Rows whose result carries an error.")


class FailedRowSummary(RecordModel):
    """A row that did not succeed, with the reasons a reader needs to start digging."""

    row_id: str | None = Field(None, description="Dataset row id.")
    task_id: str = Field(description="Task id of the row.")
    final_status: str = Field(description="The row's status.")
    weighted_score: float | None = Field(None, description="The row's weighted score; None when unscored.")
    failure_reasons: list[str] = Field(
        default_factory=list, description="Failed gating criteria with their scores, or the status."
    )
    error_message: str | None = Field(None, description="The row's error message, if any.")
    task_json_relpath: str | None = Field(None, description="The row's task.json, relative to the run directory.")
    replicate_index: int = Field(0, description="Which replicate, from 0.")


class SuiteRollup(RecordModel):
    """suite.json: the rows of one dataset suite under one variant, rolled up."""

    suite_id: str = Field(description="The dataset suite.")
    variant_id: str = Field("default", description="The variant.")
    rows_total: int = Field(0, description="Rows in the suite.")
    rows_passed: int = Field(0, description="Rows with status SUCCESS.")
    rows_failed: int = Field(0, description="Rows that failed.")
    rows_error: int = Field(0, description="Rows that ended in an error.")
    rows_measured: int = Field(0, description="Rows that carry a weighted score; zero means the pass rate is unknown.")
    average_weighted_score: float | None = Field(None, description="Mean weighted score over measured rows.")
    criterion_stats: list[CriterionStat] = Field(
        default_factory=list, description="One line per criterion: rows evaluated, mean score, errors."
    )
    failed_samples: list[FailedRowSummary] = Field(
        default_factory=list,
        max_length=FAILED_SAMPLES_CAP,
        description="Up to the first 20 rows that did not succeed, with reasons.",
    )
    criterion_aggregates: list[CriterionAggregate] = Field(
        default_factory=list, description="Per criterion: metrics and suite gates."
    )
    passed: bool = Field(True, description="True when every suite gate passed.")
    pass_k: list[PassKEstimate] = Field(
        default_factory=list, description="pass@k and pass^k over the rows, from their replicates (point estimates)."
    )
    replicate_strips: dict[str, str] = Field(
        default_factory=dict,
        description="Row -> its replicate outcomes in order (✓ succeeded, ✗ failed, ! error, · not graded); "
        "only when rows were replicated.",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float | None:
        """rows_passed / rows_total; None (unknown, not 0%) when no row was measured."""
        if self.rows_total == 0 or nothing_was_measured(measured=self.rows_measured):
            return None
        return self.rows_passed / self.rows_total
