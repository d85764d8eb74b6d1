"""Roll the rows of each dataset suite up into a `SuiteRollup`, and decide the suite gates.

The rollups are written (suite.json / suite.md) by `coder_eval.engine.report_files`.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from coder_eval.experiments.passk import arm_estimates, task_trials
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.results import CriterionResult, EvaluationResult, criterion_title, score_against_threshold
from coder_eval.models.status import FinalStatus
from coder_eval.models.suite import (
    FAILED_SAMPLES_CAP,
    CriterionAggregate,
    CriterionStat,
    FailedRowSummary,
    SuiteRollup,
)
from coder_eval.records.layout import TASK_JSON, replicate_dir
from coder_eval.suites.aggregate import RowResults, aggregate_criterion

SuiteKey = tuple[str, str]
"""(variant_id, suite_id)."""


# --- grouping ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SuiteRow:
    """What a rollup reads of one dataset row (a run passes its rows in one at a time)."""

    variant_id: str
    suite_id: str
    row_id: str | None
    task_id: str
    replicate_index: int
    final_status: FinalStatus
    weighted_score: float | None
    success_criteria_results: list[CriterionResult]
    error_message: str | None

    @classmethod
    def of(cls, result: EvaluationResult, suite_id: str) -> SuiteRow:
        return cls(
            variant_id=result.variant_id,
            suite_id=suite_id,
            row_id=result.row_id,
            task_id=result.task_id,
            replicate_index=result.replicate_index,
            final_status=result.final_status,
            weighted_score=result.weighted_score,
            success_criteria_results=result.success_criteria_results,
            error_message=result.error_message,
        )


def group_suite_rows(results: Iterable[EvaluationResult]) -> dict[SuiteKey, list[SuiteRow]]:
    """Dataset rows grouped by (variant_id, suite_id), in first-seen order; rows sorted by (row, replicate).

    Results without a `suite_id` (plain, non-dataset tasks) are ignored. `results` is read once.
    """
    groups: dict[SuiteKey, list[SuiteRow]] = {}
    for result in results:
        if result.suite_id is not None:
            groups.setdefault((result.variant_id, result.suite_id), []).append(SuiteRow.of(result, result.suite_id))
    for rows in groups.values():
        rows.sort(key=lambda r: (r.row_id or r.task_id, r.replicate_index))
    return groups


def criterion_column(rows: Sequence[SuiteRow], index: int, expected_type: str | None) -> list[CriterionResult | None]:
    """Each row's result at criterion position `index`; None when missing or of another type."""
    column: list[CriterionResult | None] = []
    for row in rows:
        found = row.success_criteria_results[index] if index < len(row.success_criteria_results) else None
        if found is not None and expected_type is not None and found.criterion_type != expected_type:
            found = None
        column.append(found)
    return column


# --- one suite --------------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def criterion_stat(criterion_type: str, column: RowResults) -> CriterionStat:
    """Rows evaluated, their mean score and how many results carry an error."""
    present = [r for r in column if r is not None]
    evaluated = [r.score for r in present if r.evaluation_status == "evaluated"]
    return CriterionStat(
        criterion_type=criterion_type,
        rows_evaluated=len(evaluated),
        average_score=_mean(evaluated),
        error_count=sum(1 for r in present if r.error is not None),
    )


def failure_reasons(row: SuiteRow) -> list[str]:
    """Why a row did not succeed: its failed gating criteria (with scores), else its status.

    Informational (weight 0, non-gating) criteria are never a reason.
    """
    reasons = [
        f"{criterion_title(c)} ({score_against_threshold(c)})" + (f": {c.error}" if c.error else "")
        for c in row.success_criteria_results
        if c.gating and c.evaluation_status == "evaluated" and not c.passed
    ]
    if row.final_status.is_execution_fact or not reasons:
        reasons.insert(0, f"status {row.final_status.value}")
    return reasons


def failed_sample(row: SuiteRow) -> FailedRowSummary:
    relpath = replicate_dir(Path(), row.variant_id, row.task_id, row.replicate_index) / TASK_JSON
    return FailedRowSummary(
        row_id=row.row_id,
        task_id=row.task_id,
        final_status=row.final_status.value,
        weighted_score=row.weighted_score,
        failure_reasons=failure_reasons(row),
        error_message=row.error_message,
        task_json_relpath=relpath.as_posix(),
        replicate_index=row.replicate_index,
    )


def _criteria_columns(
    rows: Sequence[SuiteRow], specs: Sequence[BaseCriterion]
) -> list[tuple[BaseCriterion | None, list[CriterionResult | None]]]:
    """(spec, per-row results) per criterion position, covering specs and results alike."""
    width = max([len(specs), *(len(r.success_criteria_results) for r in rows)])
    columns: list[tuple[BaseCriterion | None, list[CriterionResult | None]]] = []
    for index in range(width):
        spec = specs[index] if index < len(specs) else None
        columns.append((spec, criterion_column(rows, index, spec.type if spec is not None else None)))
    return columns


def build_suite_rollup(
    variant_id: str, suite_id: str, rows: Sequence[SuiteRow], specs: Sequence[BaseCriterion]
) -> SuiteRollup:
    """One suite under one variant: counts, scores, per-criterion stats and aggregates, gates."""
    categories = [r.final_status.category for r in rows]
    scores = [r.weighted_score for r in rows if r.weighted_score is not None]
    aggregates: list[CriterionAggregate] = []
    stats: list[CriterionStat] = []
    for spec, column in _criteria_columns(rows, specs):
        aggregate = aggregate_criterion(spec, column)
        aggregates.append(aggregate)
        stats.append(criterion_stat(aggregate.criterion_type, column))
    failed = [r for r, cat in zip(rows, categories, strict=True) if cat in ("failed", "error")]
    trials = task_trials((r.row_id or r.task_id, r.replicate_index, r.final_status) for r in rows)
    replicated = any(len(t.outcomes) > 1 for t in trials)
    return SuiteRollup(
        suite_id=suite_id,
        variant_id=variant_id,
        rows_total=len(rows),
        rows_passed=categories.count("succeeded"),
        rows_failed=categories.count("failed"),
        rows_error=categories.count("error"),
        rows_measured=len(scores),
        average_weighted_score=_mean(scores),
        criterion_stats=stats,
        failed_samples=[failed_sample(r) for r in failed[:FAILED_SAMPLES_CAP]],
        criterion_aggregates=aggregates,
        passed=all(a.passed for a in aggregates),
        pass_k=arm_estimates(trials),
        replicate_strips={t.task_id: t.strip for t in trials} if replicated else {},
    )


def build_suite_rollups(
    results: Iterable[EvaluationResult], criteria_by_suite: dict[str, list[BaseCriterion]]
) -> list[SuiteRollup]:
    """A rollup per (variant_id, suite_id) among the dataset rows of `results`.

    `criteria_by_suite` maps a suite id to its criterion specs in task-file order (position i
    matches `success_criteria_results[i]`); the specs supply `suite_thresholds`. A suite with
    no entry is still aggregated from its results, just without gates.
    """
    return [
        build_suite_rollup(variant_id, suite_id, rows, criteria_by_suite.get(suite_id, []))
        for (variant_id, suite_id), rows in group_suite_rows(results).items()
    ]


# --- gates --------------------------------------------------------------------------------


def suite_gates_passed(rollups: Sequence[SuiteRollup]) -> bool:
    """True when every suite met every threshold (vacuously true with no suites)."""
    return all(r.passed for r in rollups)


def gate_detail(rollup: SuiteRollup) -> str:
    """The threshold checks of a rollup, one per line, e.g. `accuracy 0.667 >= 0.600 ok`."""
    lines = []
    for aggregate in rollup.criterion_aggregates:
        for check in aggregate.threshold_checks:
            actual = "missing" if check.actual_value is None else f"{check.actual_value:.3f}"
            verdict = "ok" if check.passed else "FAILED"
            lines.append(f"{aggregate.criterion_type} {check.metric}: {actual} (min {check.min_value:.3f}) {verdict}")
    return "\n".join(lines)


def suite_gate_entries(rollups: Sequence[SuiteRollup]) -> list[tuple[str, bool, str]]:
    """(`variant/suite`, passed, detail) per rollup with gates: the JUnit `suite_gates` argument."""
    return [
        (f"{r.variant_id}/{r.suite_id}", r.passed, gate_detail(r))
        for r in rollups
        if any(a.threshold_checks for a in r.criterion_aggregates)
    ]
