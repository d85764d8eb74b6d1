"""Suite metrics: score statistics and the classification overlay against hand-computed values."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from typing import Any

import pytest

from coder_eval.models.criteria_files import ClassificationMatchCriterion
from coder_eval.models.results import ClassificationCriterionResult, CriterionResult
from coder_eval.suites.aggregate import (
    aggregate_criterion,
    classification_metrics,
    default_aggregate,
    ordered_labels,
    score_metrics,
)

Pairs = list[tuple[str, str]]


# --- score statistics -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([], {"count": 0.0}),
        ([0.5], {"count": 1.0, "mean": 0.5, "median": 0.5, "std": 0.0, "min": 0.5, "max": 0.5}),
        ([1.0, 0.0], {"count": 2.0, "mean": 0.5, "median": 0.5, "std": 0.5, "min": 0.0, "max": 1.0}),
        # population std of (0, 0.5, 1): sqrt(((0.5)^2 + 0 + (0.5)^2) / 3) = sqrt(1/6)
        (
            [0.0, 0.5, 1.0],
            {"count": 3.0, "mean": 0.5, "median": 0.5, "std": math.sqrt(1 / 6), "min": 0.0, "max": 1.0},
        ),
        ([1.0, 1.0, 0.0, 0.2], {"count": 4.0, "mean": 0.55, "median": 0.6, "min": 0.0, "max": 1.0}),
    ],
)
def test_score_metrics(scores: list[float], expected: dict[str, float]) -> None:
    got = score_metrics(scores)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value), key
    if scores:
        assert set(got) == {"count", "mean", "median", "std", "min", "max"}
        assert got["std"] == pytest.approx(statistics.pstdev(scores))  # population, not sample


# --- classification: hand-computed tables -----------------------------------------------------


def _brute_force(pairs: Pairs) -> dict[str, float]:
    """The textbook definitions, written independently of the implementation (no sklearn)."""
    labels = {label for pair in pairs for label in pair}
    out: dict[str, float] = {}
    f1s: dict[str, float] = {}
    support = Counter(e for e, _ in pairs)
    for label in labels:
        tp = sum(1 for e, o in pairs if e == label and o == label)
        fp = sum(1 for e, o in pairs if e != label and o == label)
        fn = sum(1 for e, o in pairs if e == label and o != label)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        out[f"precision.{label}"], out[f"recall.{label}"], out[f"f1.{label}"] = p, r, f
        f1s[label] = f
    out["accuracy"] = sum(1 for e, o in pairs if e == o) / len(pairs)
    out["macro_f1"] = sum(f1s.values()) / len(f1s)
    out["weighted_f1"] = sum(f1s[label] * support[label] for label in labels) / len(pairs)
    tp_all = sum(1 for e, o in pairs if e == o)
    fp_all = fn_all = len(pairs) - tp_all
    micro_p, micro_r = tp_all / (tp_all + fp_all), tp_all / (tp_all + fn_all)
    out["micro_f1"] = 2 * micro_p * micro_r / (micro_p + micro_r) if micro_p + micro_r else 0.0
    return out


CASES: dict[str, tuple[Pairs, dict[str, float]]] = {
    "perfect": (
        [("a", "a"), ("b", "b")],
        {"accuracy": 1.0, "macro_f1": 1.0, "precision.a": 1.0, "recall.b": 1.0, "micro_f1": 1.0},
    ),
    "all wrong": (
        [("a", "b"), ("b", "a")],
        {"accuracy": 0.0, "macro_f1": 0.0, "weighted_f1": 0.0, "f1.a": 0.0, "micro_f1": 0.0},
    ),
    # yes: tp=2 fp=1 fn=1 → P=R=F1=2/3; no: tp=1 fp=1 fn=1 → 1/2; support yes 3, no 2
    "imbalanced": (
        [("yes", "yes"), ("yes", "yes"), ("yes", "no"), ("no", "yes"), ("no", "no")],
        {
            "accuracy": 3 / 5,
            "precision.yes": 2 / 3,
            "recall.yes": 2 / 3,
            "f1.yes": 2 / 3,
            "precision.no": 1 / 2,
            "recall.no": 1 / 2,
            "macro_f1": (2 / 3 + 1 / 2) / 2,
            "weighted_f1": (3 * 2 / 3 + 2 * 1 / 2) / 5,
            "micro_f1": 3 / 5,
        },
    ),
    # (none) is never expected: it is a label (union) with recall 0/0 → 0 and precision 0/1 → 0
    "sentinel none": (
        [("a", "a"), ("a", "(none)"), ("b", "b")],
        {
            "accuracy": 2 / 3,
            "precision.(none)": 0.0,
            "recall.(none)": 0.0,
            "f1.(none)": 0.0,
            "recall.a": 1 / 2,
            "f1.a": 2 / 3,
            "macro_f1": (2 / 3 + 1.0 + 0.0) / 3,
            "weighted_f1": (2 * 2 / 3 + 1 * 1.0) / 3,
        },
    ),
    # b is expected but never predicted: precision 0/0 → 0.0 (zero_division=0)
    "never predicted": (
        [("a", "a"), ("b", "a")],
        {"precision.b": 0.0, "recall.b": 0.0, "f1.b": 0.0, "precision.a": 1 / 2, "recall.a": 1.0},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_classification_metrics_hand_computed(name: str) -> None:
    pairs, expected = CASES[name]
    got = classification_metrics(pairs).metrics
    for key, value in expected.items():
        assert got[key] == pytest.approx(value), key


@pytest.mark.parametrize("name", sorted(CASES))
def test_classification_metrics_match_textbook_formulas(name: str) -> None:
    pairs, _ = CASES[name]
    got = classification_metrics(pairs).metrics
    want = _brute_force(pairs)
    assert set(got) == set(want)
    for key, value in want.items():
        assert got[key] == pytest.approx(value), key


def test_micro_f1_equals_accuracy_for_single_label() -> None:
    pairs = [("x", "y"), ("y", "y"), ("z", "(other)"), ("x", "x"), ("y", "z")]
    metrics = classification_metrics(pairs).metrics
    assert metrics["micro_f1"] == pytest.approx(metrics["accuracy"])


def test_confusion_matrix_is_dense_expected_to_observed_with_sentinels_last() -> None:
    report = classification_metrics([("b", "a"), ("a", "(other)"), ("a", "a"), ("b", "(none)")])
    assert report.labels == ["a", "b", "(none)", "(other)"]
    assert report.confusion["b"] == {"a": 1, "b": 0, "(none)": 1, "(other)": 0}
    assert report.confusion["a"] == {"a": 1, "b": 0, "(none)": 0, "(other)": 1}
    assert report.confusion["(none)"] == dict.fromkeys(report.labels, 0)
    assert report.per_label["b"].support == 2
    assert ordered_labels([("(other)", "z"), ("a", "(none)")]) == ["a", "z", "(none)", "(other)"]


def test_no_pairs_emit_nothing() -> None:
    report = classification_metrics([])
    assert report.metrics == {} and report.labels == [] and report.confusion == {}


# --- default aggregate ------------------------------------------------------------------------


def _label(expected: str, observed: str, **kw: Any) -> ClassificationCriterionResult:
    return ClassificationCriterionResult(
        criterion_type="classification_match",
        score=1.0 if expected == observed else 0.0,
        expected_label=expected,
        observed_label=observed,
        **kw,
    )


def test_not_evaluated_and_missing_rows_are_excluded() -> None:
    rows: list[CriterionResult | None] = [
        _label("a", "a"),
        _label("b", "b", evaluation_status="not_evaluated"),
        None,
        _label("b", "a"),
    ]
    agg = default_aggregate("classification_match", "d", rows)
    assert (agg.rows_total, agg.rows_excluded) == (4, 2)
    assert agg.metrics["count"] == 2
    assert agg.metrics["accuracy"] == pytest.approx(0.5)
    assert agg.details["confusion"]["b"]["a"] == 1
    assert agg.details["per_label"]["a"]["precision"] == pytest.approx(0.5)


def test_plain_criterion_gets_only_score_statistics() -> None:
    rows: list[CriterionResult | None] = [CriterionResult(criterion_type="file_check", score=s) for s in (0.2, 0.8)]
    agg = default_aggregate("file_check", "", rows)
    assert set(agg.metrics) == {"count", "mean", "median", "std", "min", "max"}
    assert agg.details == {}


def test_unknown_type_with_labelled_results_gets_the_overlay() -> None:
    rows: list[CriterionResult | None] = [
        ClassificationCriterionResult(criterion_type="my_plugin", score=1.0, expected_label="y", observed_label="y")
    ]
    assert default_aggregate("my_plugin", "", rows).metrics["accuracy"] == 1.0


def _spec(thresholds: dict[str, float] | None, weight: float = 1.0) -> ClassificationMatchCriterion:
    return ClassificationMatchCriterion(
        type="classification_match",
        description="label",
        path="out.txt",
        expected_label="a",
        allowed_labels=["a", "b"],
        weight=weight,
        suite_thresholds=thresholds,
    )


@pytest.mark.parametrize(
    ("thresholds", "passed", "actuals"),
    [
        ({"accuracy": 0.5}, True, [0.5]),  # equal to the minimum passes
        ({"accuracy": 0.51}, False, [0.5]),
        ({"recall.a": 1.0, "mean": 0.4}, True, [1.0, 0.5]),
        ({"f1.zzz": 0.1}, False, [None]),  # metric not emitted → fails
        (None, True, []),
    ],
)
def test_thresholds(thresholds: dict[str, float] | None, passed: bool, actuals: list[float | None]) -> None:
    rows: list[CriterionResult | None] = [_label("a", "a"), _label("b", "a")]
    agg = aggregate_criterion(_spec(thresholds), rows)
    assert agg.passed is passed
    assert [c.actual_value for c in agg.threshold_checks] == actuals
    assert all(c.passed == (c.actual_value is not None and c.actual_value >= c.min_value) for c in agg.threshold_checks)


def test_informational_criterion_never_gates() -> None:
    rows: list[CriterionResult | None] = [_label("a", "b", weight=0.0, gating=False)]
    agg = aggregate_criterion(_spec(None, weight=0.0), rows)
    assert agg.passed and agg.threshold_checks == []
    assert agg.metrics["accuracy"] == 0.0  # still measured, just not gated
