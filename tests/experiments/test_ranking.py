"""Three or more arms: the report ranks them and says which the data cannot tell apart."""

from __future__ import annotations

from collections.abc import Callable

from coder_eval.experiments.build import build_experiment_result
from coder_eval.experiments.ranking import rank_arms
from coder_eval.models.results import EvaluationResult
from coder_eval.reports.experiment_html import render_experiment_html
from coder_eval.reports.experiment_markdown import render_experiment_markdown

LEVELS = [0.30, 0.50, 0.70, 0.40, 0.60, 0.80]
Row = Callable[..., EvaluationResult]


def arm(row: Row, variant_id: str, levels: list[float]) -> list[EvaluationResult]:
    """Three replicates per task around each level (the `row` fixture builds one row)."""
    return [
        row(f"task-{t}", variant_id, round(lv + d, 6), i)
        for t, lv in enumerate(levels)
        for i, d in enumerate((-0.04, 0, 0.04))
    ]


def test_identical_arms_are_indistinguishable_and_ranked_by_name(row: Row) -> None:
    rows = arm(row, "zeta", LEVELS) + arm(row, "alpha", LEVELS) + arm(row, "mid", LEVELS)
    result = build_experiment_result("same", "", ["zeta", "alpha", "mid"], rows)
    ranking = rank_arms(result)
    assert ranking is not None
    assert [a.variant_id for a in ranking.arms] == ["alpha", "mid", "zeta"]
    assert ranking.verdict.startswith("The 3 arms are indistinguishable")
    text = render_experiment_markdown(result)
    assert "## Ranking" in text and "**The 3 arms are indistinguishable" in text
    assert "| 2 | mid | 0.550 | +0.000 [+0.000, +0.000] | 0 / 0 / 6 |" in text
    assert "The 3 arms are indistinguishable" in render_experiment_html(result)


def test_a_clearly_worse_arm_trails_the_leader(row: Row) -> None:
    worse = [level - 0.25 for level in LEVELS]
    near = [level + (0.01 if i % 2 else -0.01) for i, level in enumerate(LEVELS)]
    rows = arm(row, "base", LEVELS) + arm(row, "worse", worse) + arm(row, "near", near)
    result = build_experiment_result("three", "", ["base", "worse", "near"], rows)
    ranking = rank_arms(result)
    assert ranking is not None
    assert ranking.arms[-1].variant_id == "worse" and ranking.arms[-1].distinguishable
    assert "worse trail it beyond the 95% interval" in ranking.verdict
    assert "cannot be told apart from it" in ranking.verdict


def test_two_arms_keep_the_paired_comparison_only(row: Row) -> None:
    result = build_experiment_result("two", "", ["a", "b"], arm(row, "a", LEVELS) + arm(row, "b", LEVELS))
    assert rank_arms(result) is None
    assert "## Ranking" not in render_experiment_markdown(result)
