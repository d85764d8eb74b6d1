"""Dataset-suite rollups: what suite.json holds (one per variant and suite)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, computed_field

from coder_eval.models.base import RecordModel
from coder_eval.models.run import nothing_was_measured

FAILED_SAMPLES_CAP = 20
"""At most this many failed rows are listed in a rollup."""


class ThresholdCheck(RecordModel):
    """One `suite_thresholds` entry checked against the aggregated metric of the same name."""

    metric: str
    min_value: float
    actual_value: float | None = None
    """None when the aggregator did not emit the metric; such a check always fails."""
    passed: bool


class CriterionAggregate(RecordModel):
    """One criterion's metrics over the rows of a suite, and its suite gates."""

    criterion_type: str
    description: str = ""
    rows_total: int = 0
    rows_excluded: int = 0
    """Rows where this criterion was not evaluated (or missing); they feed no metric."""
    metrics: dict[str, float] = Field(default_factory=dict)
    threshold_checks: list[ThresholdCheck] = Field(default_factory=list)
    passed: bool = True
    details: dict[str, Any] = Field(default_factory=dict)
    """Render extras; for classification: `labels`, `per_label`, `confusion`."""
    error: str | None = None


class CriterionStat(RecordModel):
    """A one-line summary of one criterion across the suite's rows."""

    criterion_type: str
    rows_evaluated: int = 0
    average_score: float | None = None
    error_count: int = 0


class FailedRowSummary(RecordModel):
    """A row that did not succeed, with the reasons a reader needs to start digging."""

    row_id: str | None = None
    task_id: str
    final_status: str
    weighted_score: float | None = None
    failure_reasons: list[str] = Field(default_factory=list)
    error_message: str | None = None
    task_json_relpath: str | None = None
    replicate_index: int = 0


class SuiteRollup(RecordModel):
    """suite.json: the rows of one dataset suite under one variant, rolled up."""

    suite_id: str
    variant_id: str = "default"
    rows_total: int = 0
    rows_passed: int = 0
    rows_failed: int = 0
    rows_error: int = 0
    rows_measured: int = 0
    """Rows that carry a weighted score; zero means the pass rate is unknown."""
    average_weighted_score: float | None = None
    criterion_stats: list[CriterionStat] = Field(default_factory=list)
    failed_samples: list[FailedRowSummary] = Field(default_factory=list, max_length=FAILED_SAMPLES_CAP)
    criterion_aggregates: list[CriterionAggregate] = Field(default_factory=list)
    passed: bool = True

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float | None:
        """rows_passed / rows_total; None (unknown, not 0%) when no row was measured."""
        if self.rows_total == 0 or nothing_was_measured(measured=self.rows_measured):
            return None
        return self.rows_passed / self.rows_total
