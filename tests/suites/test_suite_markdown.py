"""suite.md rendering: headline numbers, metrics, gates, per-label table, confusion, failures."""

from __future__ import annotations

from coder_eval.models.suite import CriterionAggregate, CriterionStat, FailedRowSummary, SuiteRollup, ThresholdCheck
from coder_eval.reports.suite_markdown import render_suite_markdown


def _rollup(*, passed: bool = True) -> SuiteRollup:
    aggregate = CriterionAggregate(
        criterion_type="classification_match",
        description="label | matches",
        rows_total=3,
        rows_excluded=0,
        metrics={"count": 3.0, "mean": 2 / 3, "accuracy": 2 / 3, "recall.positive": 1.0},
        threshold_checks=[
            ThresholdCheck(metric="accuracy", min_value=0.6, actual_value=2 / 3, passed=True),
            ThresholdCheck(metric="f1.x", min_value=0.5, actual_value=None, passed=passed),
        ],
        passed=passed,
        details={
            "labels": ["negative", "positive"],
            "per_label": {
                "negative": {"precision": 1.0, "recall": 0.5, "f1": 2 / 3, "support": 2},
                "positive": {"precision": 0.5, "recall": 1.0, "f1": 2 / 3, "support": 1},
            },
            "confusion": {"negative": {"negative": 1, "positive": 1}, "positive": {"negative": 0, "positive": 1}},
        },
    )
    return SuiteRollup(
        suite_id="sent",
        variant_id="v1",
        rows_total=3,
        rows_passed=2,
        rows_failed=1,
        rows_measured=3,
        average_weighted_score=2 / 3,
        criterion_stats=[CriterionStat(criterion_type="classification_match", rows_evaluated=3, average_score=2 / 3)],
        failed_samples=[
            FailedRowSummary(
                row_id="r3",
                task_id="sent/r3",
                final_status="FAILURE",
                weighted_score=0.0,
                failure_reasons=["label (score 0.000 < threshold 0.900)"],
                error_message="oops",
                task_json_relpath="v1/sent/r3/00/task.json",
            )
        ],
        criterion_aggregates=[aggregate],
        passed=passed,
    )


def test_renders_every_section() -> None:
    md = render_suite_markdown(_rollup())
    assert md.startswith("# Suite sent · variant v1\n")
    assert "- Suite gates: **✓ pass**" in md
    assert "- Rows: 3 total · 2 passed · 1 failed · 0 error" in md
    assert "- Pass rate: 66.7%" in md
    assert "- Average weighted score: 0.667" in md
    assert "| 1 | classification_match | 3 | 0.667 | 0 |" in md
    assert "### 1. classification_match: label \\| matches" in md
    assert "| count | 3 |" in md and "| accuracy | 0.667 |" in md and "| recall.positive | 1.000 |" in md
    assert "| accuracy | 0.600 | 0.667 | ✓ pass |" in md
    assert "| f1.x | 0.500 | not emitted |" in md
    assert "| negative | 1.000 | 0.500 | 0.667 | 2 |" in md
    assert "| expected ↓ / observed → | negative | positive |" in md
    assert "| negative | 1 | 1 |" in md and "| positive | 0 | 1 |" in md
    assert "## Failed rows" in md
    assert (
        "| r3 | 0 | FAILURE | 0.000 | label (score 0.000 < threshold 0.900); error: oops | v1/sent/r3/00/task.json |"
        in md
    )
    assert md.endswith("\n") and not md.endswith("\n\n")


def test_failed_gate_and_empty_suite() -> None:
    assert "- Suite gates: **✗ FAIL**" in render_suite_markdown(_rollup(passed=False))
    empty = render_suite_markdown(SuiteRollup(suite_id="s"))
    assert "no suite thresholds" in empty and "Pass rate: n/a" in empty and "Average weighted score: n/a" in empty
    assert "## Suite metrics" not in empty and "## Failed rows" not in empty


def test_failed_rows_heading_says_when_capped() -> None:
    rollup = _rollup().model_copy(update={"rows_failed": 30})
    assert "## Failed rows (first 1 of 30)" in render_suite_markdown(rollup)
