"""Per-criterion aggregation over the rows of a dataset suite, and the suite gates.

Every criterion gets `count / mean / median / std / min / max` of its scores. Classification
criteria (`classification_match`, `skill_triggered`, or any criterion whose results are
`ClassificationCriterionResult`) additionally get accuracy, per-label precision / recall / F1,
macro / weighted / micro F1 and a confusion matrix. Plain Python: the arithmetic is simple and
the project does not depend on NumPy.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.results import CLASSIFICATION_TYPES, ClassificationCriterionResult, CriterionResult
from coder_eval.models.suite import CriterionAggregate, ThresholdCheck

NO_LABEL = "(none)"
OTHER_LABEL = "(other)"
SENTINEL_LABELS = (NO_LABEL, OTHER_LABEL)

RowResults = Sequence[CriterionResult | None]
"""One criterion's result per suite row; None where the row has no result for it."""

Aggregator = Callable[[BaseCriterion, list[CriterionResult]], CriterionAggregate | None]


# --- score statistics -------------------------------------------------------------------------


def score_metrics(scores: Sequence[float]) -> dict[str, float]:
    """count / mean / median / std / min / max of `scores`.

    `std` is the *population* standard deviation (`statistics.pstdev`, divide by n): the rows
    are the whole suite, not a sample of it, and a single row has std 0.0 rather than undefined.
    With no scores only `count` (0) is emitted, so a threshold on any other key fails.
    """
    if not scores:
        return {"count": 0.0}
    values = [float(s) for s in scores]
    return {
        "count": float(len(values)),
        "mean": statistics.fmean(values),
        "median": float(statistics.median(values)),
        "std": statistics.pstdev(values),
        "min": min(values),
        "max": max(values),
    }


# --- classification ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LabelStats:
    """Precision, recall and F1 of one label, with its support (rows whose expected label it is)."""

    precision: float
    recall: float
    f1: float
    support: int


@dataclass
class ClassificationReport:
    """Everything the classification overlay computes from (expected, observed) pairs."""

    labels: list[str] = field(default_factory=list)
    per_label: dict[str, LabelStats] = field(default_factory=dict)
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)


def _ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, with 0/0 (and x/0) defined as 0.0."""
    return numerator / denominator if denominator else 0.0


def _f1(precision: float, recall: float) -> float:
    return _ratio(2 * precision * recall, precision + recall)


def ordered_labels(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """Union of expected and observed labels: real labels sorted, then the (none)/(other) sentinels."""
    seen = {label for pair in pairs for label in pair}
    real = sorted(label for label in seen if label not in SENTINEL_LABELS)
    return real + [s for s in SENTINEL_LABELS if s in seen]


def confusion_matrix(pairs: Sequence[tuple[str, str]], labels: list[str]) -> dict[str, dict[str, int]]:
    """Dense matrix `confusion[expected][observed]` = number of rows, zeros included."""
    matrix = {expected: dict.fromkeys(labels, 0) for expected in labels}
    for expected, observed in pairs:
        matrix[expected][observed] += 1
    return matrix


def _label_stats(label: str, confusion: dict[str, dict[str, int]]) -> LabelStats:
    true_pos = confusion[label][label]
    predicted = sum(row[label] for row in confusion.values())
    support = sum(confusion[label].values())
    precision = _ratio(true_pos, predicted)
    recall = _ratio(true_pos, support)
    return LabelStats(precision=precision, recall=recall, f1=_f1(precision, recall), support=support)


def classification_metrics(pairs: Sequence[tuple[str, str]]) -> ClassificationReport:
    """Accuracy, per-label P/R/F1, macro / weighted / micro F1 and the confusion matrix.

    `pairs` are (expected, observed) labels, one per evaluated row. Labels are the union of
    expected and observed ones, sentinels included, so a `(none)` or `(other)` prediction is a
    real class that costs precision-free recall elsewhere. Any zero division (a label never
    predicted, never expected, or P + R = 0) yields 0.0, as scikit-learn's `zero_division=0`.
    `macro_f1` is the unweighted mean over all labels; `weighted_f1` weights each label's F1 by
    its support; `micro_f1` pools true/false positives over labels (for single-label
    classification it equals accuracy). Keys: `accuracy`, `macro_f1`, `weighted_f1`,
    `micro_f1`, `precision.<label>`, `recall.<label>`, `f1.<label>`.
    """
    if not pairs:
        return ClassificationReport()
    labels = ordered_labels(pairs)
    confusion = confusion_matrix(pairs, labels)
    per_label = {label: _label_stats(label, confusion) for label in labels}
    correct = sum(confusion[label][label] for label in labels)
    total = len(pairs)
    metrics: dict[str, float] = {"accuracy": _ratio(correct, total)}
    for label, stats in per_label.items():
        metrics[f"precision.{label}"] = stats.precision
        metrics[f"recall.{label}"] = stats.recall
        metrics[f"f1.{label}"] = stats.f1
    metrics["macro_f1"] = _ratio(sum(s.f1 for s in per_label.values()), len(labels))
    metrics["weighted_f1"] = _ratio(sum(s.f1 * s.support for s in per_label.values()), total)
    # Every row predicts exactly one label and expects exactly one, so pooled over labels
    # Σ(TP + FP) = Σ(TP + FN) = rows: micro precision = micro recall = ΣTP / rows.
    micro_precision = micro_recall = _ratio(correct, total)
    metrics["micro_f1"] = _f1(micro_precision, micro_recall)
    return ClassificationReport(labels=labels, per_label=per_label, confusion=confusion, metrics=metrics)


def is_classification(criterion_type: str, results: Sequence[CriterionResult]) -> bool:
    """A classification criterion by type, or because its results carry labels."""
    return criterion_type in CLASSIFICATION_TYPES or any(isinstance(r, ClassificationCriterionResult) for r in results)


def _label_pairs(results: Sequence[CriterionResult]) -> list[tuple[str, str]]:
    """(expected, observed) per evaluated labelled row; an empty observed label reads as (none)."""
    return [
        (r.expected_label, r.observed_label or NO_LABEL)
        for r in results
        if isinstance(r, ClassificationCriterionResult)
    ]


def overlay_classification_metrics(aggregate: CriterionAggregate, results: Sequence[CriterionResult]) -> None:
    """Add the classification metrics and render extras (`labels`, `per_label`, `confusion`) in place."""
    report = classification_metrics(_label_pairs([r for r in results if r.evaluation_status == "evaluated"]))
    aggregate.metrics.update(report.metrics)
    aggregate.details["labels"] = report.labels
    aggregate.details["per_label"] = {
        label: {"precision": s.precision, "recall": s.recall, "f1": s.f1, "support": s.support}
        for label, s in report.per_label.items()
    }
    aggregate.details["confusion"] = report.confusion


# --- one criterion ----------------------------------------------------------------------------


def default_aggregate(
    criterion_type: str, description: str, rows: RowResults, *, classification: bool | None = None
) -> CriterionAggregate:
    """The base aggregate: score statistics over evaluated rows, plus the classification overlay.

    Rows with no result or a `not_evaluated` one are counted in `rows_excluded` and feed no
    metric. `classification` forces the overlay on or off; by default it follows the type and
    the result classes (see `is_classification`).
    """
    present = [r for r in rows if r is not None]
    evaluated = [r for r in present if r.evaluation_status == "evaluated"]
    aggregate = CriterionAggregate(
        criterion_type=criterion_type,
        description=description,
        rows_total=len(rows),
        rows_excluded=len(rows) - len(evaluated),
        metrics=score_metrics([r.score for r in evaluated]),
    )
    if classification if classification is not None else is_classification(criterion_type, present):
        overlay_classification_metrics(aggregate, evaluated)
    return aggregate


def apply_thresholds(aggregate: CriterionAggregate, spec: BaseCriterion | None) -> CriterionAggregate:
    """Check the spec's `suite_thresholds` against the aggregate's metrics; sets `passed`.

    A metric the aggregate did not emit has `actual_value` None and fails. Informational
    (weight 0) criteria never gate. An aggregate with an error fails only if it has gates.
    """
    thresholds = spec.suite_thresholds if spec is not None and spec.is_gating else None
    checks = [
        ThresholdCheck(
            metric=metric,
            min_value=minimum,
            actual_value=aggregate.metrics.get(metric),
            passed=(actual := aggregate.metrics.get(metric)) is not None and actual >= minimum,
        )
        for metric, minimum in (thresholds or {}).items()
    ]
    aggregate.threshold_checks = checks
    aggregate.passed = all(c.passed for c in checks)
    return aggregate


def _custom_aggregator(criterion_type: str) -> Aggregator | None:
    """A registered checker's own `aggregate(criterion, per_row_results)`, if it defines one."""
    from coder_eval.criteria.registry import checker_for

    checker = checker_for(criterion_type)
    hook: Any = getattr(checker, "aggregate", None) if checker is not None else None
    return hook if callable(hook) else None


def aggregate_criterion(spec: BaseCriterion | None, rows: RowResults, *, description: str = "") -> CriterionAggregate:
    """Aggregate one criterion over a suite's rows and check its suite gates.

    A checker that defines `aggregate(criterion, per_row_results)` is used first (it receives
    the evaluated results only); returning None falls back to the default. An aggregator that
    raises yields an aggregate carrying the error, which fails any gate set on it.
    """
    first = next((r for r in rows if r is not None), None)
    criterion_type = spec.type if spec is not None else (first.criterion_type if first else "unknown")
    text = description or (spec.description if spec is not None else (first.description if first else ""))
    try:
        aggregate = _run_aggregator(spec, criterion_type, text, rows)
    except Exception as exc:  # a plugin's aggregator must not take the whole rollup down
        aggregate = CriterionAggregate(
            criterion_type=criterion_type,
            description=text,
            rows_total=len(rows),
            rows_excluded=len(rows),
            error=f"{type(exc).__name__}: {exc}",
        )
    return apply_thresholds(aggregate, spec)


def _run_aggregator(
    spec: BaseCriterion | None, criterion_type: str, description: str, rows: RowResults
) -> CriterionAggregate:
    custom = _custom_aggregator(criterion_type) if spec is not None else None
    if custom is not None and spec is not None:
        evaluated = [r for r in rows if r is not None and r.evaluation_status == "evaluated"]
        produced = custom(spec, evaluated)
        if produced is not None:
            return produced
    return default_aggregate(criterion_type, description, rows)
