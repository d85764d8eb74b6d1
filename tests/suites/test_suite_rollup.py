"""Suite rollups: grouping, counts, failed samples, gates, the sentiment example, suite.json/.md."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from coder_eval.engine.report_files import write_suite_rollups
from coder_eval.loading.loader import load_task_file
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.criteria_files import ClassificationMatchCriterion
from coder_eval.models.results import ClassificationCriterionResult, CriterionResult, EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.models.suite import CriterionAggregate, SuiteRollup
from coder_eval.reports.suite_markdown import render_suite_markdown
from coder_eval.suites import aggregate as aggregate_module
from coder_eval.suites.aggregate import aggregate_criterion
from coder_eval.suites.rollup import (
    build_suite_rollups,
    suite_gate_entries,
    suite_gates_passed,
)

T0 = datetime(2024, 1, 1, 12, 0, 0)
SUITE = "sentiment-classification"


def _row(
    row_id: str | None,
    criteria: list[CriterionResult],
    *,
    suite_id: str | None = SUITE,
    variant: str = "default",
    status: FinalStatus | None = None,
    rep: int = 0,
    error_message: str | None = None,
) -> EvaluationResult:
    ok = all(c.passed for c in criteria if c.gating)
    return EvaluationResult(
        task_id=f"{suite_id}/{row_id}" if suite_id else "plain-task",
        variant_id=variant,
        suite_id=suite_id,
        row_id=row_id,
        replicate_index=rep,
        started_at=T0,
        final_status=status or (FinalStatus.SUCCESS if ok else FinalStatus.FAILURE),
        weighted_score=None if status is FinalStatus.ERROR else (1.0 if ok else 0.0),
        success_criteria_results=criteria,
        error_message=error_message,
    )


def _label(expected: str, observed: str, description: str = "Predicted label matches expected") -> CriterionResult:
    return ClassificationCriterionResult(
        criterion_type="classification_match",
        description=description,
        score=1.0 if expected == observed else 0.0,
        expected_label=expected,
        observed_label=observed,
    )


def _info(score: float) -> CriterionResult:
    return CriterionResult(
        criterion_type="file_exists", description="notes written", score=score, weight=0.0, gating=False
    )


@pytest.fixture
def sentiment_spec(conformance: Path) -> BaseCriterion:
    task, _ = load_task_file(conformance / "tasks" / "sentiment_classification.yaml")
    return task.success_criteria[0]


def _sentiment_rows() -> list[EvaluationResult]:
    # r3's text ("Amazing quality and excellent value for money.") is positive but its ground
    # truth is labelled negative; a correct model outputs positive there.
    return [
        _row("r1", [_label("positive", "positive")]),
        _row("r2", [_label("negative", "negative")]),
        _row("r3", [_label("negative", "positive")]),
    ]


def test_sentiment_example_metrics_and_gates(sentiment_spec: BaseCriterion) -> None:
    (rollup,) = build_suite_rollups(_sentiment_rows(), {SUITE: [sentiment_spec]})
    (agg,) = rollup.criterion_aggregates
    m = agg.metrics
    # Metrics are computed against the dataset's `expected` labels (that is what the row's
    # ground truth is). Confusion (expected → observed): positive→positive 1, negative→negative 1,
    # negative→positive 1. So the mislabeled r3 is a false positive for "positive":
    #   positive: TP=1 FP=1 FN=0 → precision 1/2, recall 1
    #   negative: TP=1 FP=0 FN=1 → precision 1,   recall 1/2
    # The YAML/spec comment "recall(positive)=1/2, precision(positive)=1/1, precision(negative)=1/2"
    # has positive/negative swapped: it holds only if the *text's true* sentiment were the
    # reference. The same file's threshold comment ("recall.positive=1.0", gate 0.9) agrees with
    # the data, as do accuracy, macro F1 and both per-label F1s (2/3) either way.
    assert m["accuracy"] == pytest.approx(2 / 3)
    assert m["macro_f1"] == pytest.approx(2 / 3)
    assert m["weighted_f1"] == pytest.approx(2 / 3)
    assert m["micro_f1"] == pytest.approx(2 / 3)
    assert m["recall.positive"] == pytest.approx(1.0)
    assert m["recall.negative"] == pytest.approx(1 / 2)
    assert m["precision.positive"] == pytest.approx(1 / 2)
    assert m["precision.negative"] == pytest.approx(1.0)
    assert m["f1.positive"] == pytest.approx(2 / 3)
    assert m["f1.negative"] == pytest.approx(2 / 3)
    assert agg.details["confusion"] == {
        "negative": {"negative": 1, "positive": 1},
        "positive": {"negative": 0, "positive": 1},
    }
    assert {c.metric: c.passed for c in agg.threshold_checks} == {
        "accuracy": True,
        "macro_f1": True,
        "recall.positive": True,
    }
    assert agg.passed and rollup.passed and suite_gates_passed([rollup])
    assert (rollup.rows_total, rollup.rows_passed, rollup.rows_failed, rollup.rows_error) == (3, 2, 1, 0)
    assert rollup.pass_rate == pytest.approx(2 / 3)
    assert rollup.average_weighted_score == pytest.approx(2 / 3)
    assert [s.row_id for s in rollup.failed_samples] == ["r3"]


def test_failing_gate_fails_the_suite(sentiment_spec: BaseCriterion) -> None:
    strict = sentiment_spec.model_copy(update={"suite_thresholds": {"accuracy": 0.9, "recall.positive": 0.9}})
    (rollup,) = build_suite_rollups(_sentiment_rows(), {SUITE: [strict]})
    checks = {c.metric: (c.actual_value, c.passed) for c in rollup.criterion_aggregates[0].threshold_checks}
    assert checks["accuracy"][0] == pytest.approx(2 / 3)
    assert checks["accuracy"][1] is False
    assert checks["recall.positive"] == (1.0, True)
    assert not rollup.passed and not suite_gates_passed([rollup])
    ((name, passed, detail),) = suite_gate_entries([rollup])
    assert name == f"default/{SUITE}" and not passed
    assert "accuracy: 0.667 (min 0.900) FAILED" in detail


def test_missing_metric_fails_gate(sentiment_spec: BaseCriterion) -> None:
    typo = sentiment_spec.model_copy(update={"suite_thresholds": {"recall.postive": 0.5}})
    (rollup,) = build_suite_rollups(_sentiment_rows(), {SUITE: [typo]})
    (check,) = rollup.criterion_aggregates[0].threshold_checks
    assert check.actual_value is None and not check.passed and not rollup.passed


def test_informational_criterion_is_never_a_failure_reason(sentiment_spec: BaseCriterion) -> None:
    rows = [
        _row("r1", [_label("positive", "positive"), _info(0.0)]),  # info fails, row still succeeds
        _row("r3", [_label("negative", "positive"), _info(0.0)]),
    ]
    (rollup,) = build_suite_rollups(rows, {SUITE: [sentiment_spec]})
    assert rollup.rows_passed == 1
    (sample,) = rollup.failed_samples
    assert sample.failure_reasons == [
        "classification_match: Predicted label matches expected (score 0.000 < threshold 0.900)"
    ]
    info_agg = rollup.criterion_aggregates[1]
    assert info_agg.criterion_type == "file_exists" and info_agg.passed and info_agg.threshold_checks == []
    assert info_agg.metrics["mean"] == 0.0


def test_grouping_counts_and_failed_samples() -> None:
    rows = [
        _row("b", [_label("x", "y")], variant="v2"),
        _row("a", [_label("x", "x")], variant="v2"),
        _row("a", [_label("x", "x")]),
        _row(None, [_label("x", "y")], suite_id=None),  # plain task: ignored
        _row("c", [_label("x", "(none)")], status=FinalStatus.ERROR, error_message="sandbox died"),
        _row("d", [], status=FinalStatus.TIMEOUT, rep=1),
    ]
    rollups = build_suite_rollups(rows, {})
    assert [(r.variant_id, r.suite_id) for r in rollups] == [("v2", SUITE), ("default", SUITE)]
    v2, default = rollups
    assert (v2.rows_total, v2.rows_passed, v2.rows_failed) == (2, 1, 1)
    assert (default.rows_total, default.rows_passed, default.rows_failed, default.rows_error) == (3, 1, 1, 1)
    error_sample, timeout_sample = default.failed_samples
    assert error_sample.error_message == "sandbox died"
    assert error_sample.failure_reasons[0] == "status ERROR"
    assert timeout_sample.failure_reasons == ["status TIMEOUT"]
    assert timeout_sample.task_json_relpath == f"default/{SUITE}/d/01/task.json"
    assert default.criterion_stats[0].rows_evaluated == 2
    assert default.criterion_aggregates[0].rows_excluded == 1  # the timed-out row had no result
    assert default.passed  # no specs → no gates


def test_failed_samples_capped_at_twenty() -> None:
    rows = [_row(f"r{i:02d}", [_label("x", "y")]) for i in range(25)]
    (rollup,) = build_suite_rollups(rows, {})
    assert rollup.rows_failed == 25 and len(rollup.failed_samples) == 20
    assert rollup.failed_samples[0].row_id == "r00"


def test_pass_rate_unknown_when_nothing_measured() -> None:
    rows = [_row("a", [], status=FinalStatus.ERROR), _row("b", [], status=FinalStatus.ERROR)]
    (rollup,) = build_suite_rollups(rows, {})
    assert rollup.pass_rate is None and rollup.average_weighted_score is None
    assert rollup.criterion_aggregates == []


def test_mismatched_result_type_is_excluded(sentiment_spec: BaseCriterion) -> None:
    rows = [_row("a", [_label("positive", "positive")]), _row("b", [_info(1.0)])]
    (rollup,) = build_suite_rollups(rows, {SUITE: [sentiment_spec]})
    assert rollup.criterion_aggregates[0].rows_excluded == 1


def test_checker_aggregate_hook_and_error(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = ClassificationMatchCriterion(
        type="classification_match",
        description="d",
        path="o",
        expected_label="x",
        allowed_labels=["x"],
        suite_thresholds={"custom": 0.5},
    )

    def custom(_spec: BaseCriterion, results: list[CriterionResult]) -> CriterionAggregate:
        return CriterionAggregate(criterion_type="classification_match", metrics={"custom": float(len(results))})

    monkeypatch.setattr(aggregate_module, "_custom_aggregator", lambda _t: custom)
    assert aggregate_criterion(spec, [_label("x", "x"), None]).metrics == {"custom": 1.0}

    def broken(_spec: BaseCriterion, _results: list[CriterionResult]) -> CriterionAggregate:
        raise RuntimeError("boom")

    monkeypatch.setattr(aggregate_module, "_custom_aggregator", lambda _t: broken)
    agg = aggregate_criterion(spec, [_label("x", "x")])
    assert agg.error == "RuntimeError: boom" and not agg.passed


def test_write_suite_rollups_round_trips(tmp_path: Path, sentiment_spec: BaseCriterion) -> None:
    rollups = build_suite_rollups(_sentiment_rows(), {SUITE: [sentiment_spec]})
    written = write_suite_rollups(tmp_path, rollups)
    json_path = tmp_path / "default" / SUITE / "suite.json"
    md_path = tmp_path / "default" / SUITE / "suite.md"
    assert written == [json_path, md_path]
    raw: dict[str, Any] = json.loads(json_path.read_text(encoding="utf-8"))
    assert raw["pass_rate"] == pytest.approx(2 / 3)
    assert raw["criterion_aggregates"][0]["metrics"]["macro_f1"] == pytest.approx(2 / 3)
    raw["added_by_a_newer_version"] = 1
    again = SuiteRollup.model_validate(raw)
    assert again == rollups[0]
    assert md_path.read_text(encoding="utf-8").startswith(f"# Suite {SUITE} · variant default")
    assert not list(json_path.parent.glob(".*.tmp"))


def test_replicated_rows_get_pass_k_and_strips() -> None:
    """Two rows × three replicates: the rollup records each row's strip and pass@k / pass^k."""
    outcomes = {"r1": [FinalStatus.SUCCESS, FinalStatus.FAILURE, FinalStatus.SUCCESS], "r2": [FinalStatus.FAILURE] * 3}
    rows = [_row(r, [], status=s, rep=i) for r, statuses in outcomes.items() for i, s in enumerate(statuses)]
    [rollup] = build_suite_rollups(rows, {})
    assert rollup.replicate_strips == {"r1": "✓✗✓", "r2": "✗✗✗"}
    by_k = {f.k: f for f in rollup.pass_k}
    # r1: n=3 c=2 → pass@2 = 1 − C(1,2)/C(3,2) = 1, pass^2 = C(2,2)/C(3,2) = 1/3; r2 contributes 0 to both.
    assert by_k[2].pass_at_k == pytest.approx(0.5) and by_k[2].pass_hat_k == pytest.approx(1 / 6)
    text = render_suite_markdown(rollup)
    assert "- pass@k / pass^k: k=2 0.500 / 0.167" in text
    assert "| r1 | ✓✗✓ |" in text


def test_single_replicate_rows_record_no_strips() -> None:
    [rollup] = build_suite_rollups([_row("r1", [])], {})
    assert rollup.replicate_strips == {} and [f.k for f in rollup.pass_k] == [1]
    assert "pass@k" not in render_suite_markdown(rollup)
