"""Quarantine: tasks left out of (or down-weighted in) an experiment's statistics and verdict, and said so."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from pydantic import ValidationError
from scipy import stats  # type: ignore[import-untyped]

from coder_eval.experiments.analysis import (
    compare_two_arms,
    pass_k_figures,
    quarantine_summary,
    variant_statistics,
)
from coder_eval.experiments.build import build_experiment_result, quarantine_records
from coder_eval.experiments.passk import task_trials
from coder_eval.experiments.stats import (
    bootstrap_mean,
    paired_comparison,
    weighted_rate,
    weighted_t_pvalue,
    wilson_interval,
)
from coder_eval.models.experiment import ExperimentDefinition, Quarantine
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.reports.experiment_html import render_experiment_html
from coder_eval.reports.experiment_markdown import render_experiment_markdown

Row = Callable[..., EvaluationResult]
NOISE = (-0.04, 0.0, 0.04)


def arm(row: Row, variant_id: str, levels: list[float]) -> list[EvaluationResult]:
    """Three replicates per task around each level, one task per level (task-0, task-1, …)."""
    return [
        row(f"task-{t}", variant_id, round(level + d, 6), i)
        for t, level in enumerate(levels)
        for i, d in enumerate(NOISE)
    ]


def _experiment(**quarantine: object) -> ExperimentDefinition:
    return ExperimentDefinition.model_validate(
        {"experiment_id": "q", "variants": [{"variant_id": "A"}, {"variant_id": "B"}], "quarantine": quarantine or None}
    )


def test_the_file_takes_a_bare_list_or_a_mode_and_refuses_what_does_not_fit() -> None:
    bare = ExperimentDefinition.model_validate(
        {"experiment_id": "q", "variants": [{"variant_id": "A"}], "quarantine": ["t1", "t2"]}
    )
    assert bare.quarantine is not None and bare.quarantine.mode == "exclude" and bare.quarantine.task_weight == 0.0
    weighted = Quarantine(tasks=["t1"], mode="weight", weight=0.25)
    assert weighted.task_weight == 0.25
    for bad, message in (
        ({"tasks": ["t1"], "mode": "weight"}, "needs a weight"),
        ({"tasks": ["t1"], "weight": 0.5}, "applies to mode weight"),
        ({"tasks": ["t1"], "mode": "weight", "weight": 1.5}, "less than 1"),
        ({"tasks": ["t1", "t1"]}, "listed more than once"),
        ({"tasks": []}, "at least 1"),
    ):
        with pytest.raises(ValidationError, match=message):
            Quarantine.model_validate(bad)


def test_records_say_how_each_task_counts_and_whether_it_ran() -> None:
    records = quarantine_records(Quarantine(tasks=["t1", "gone"], mode="weight", weight=0.5), ["t1", "t2"])
    assert [(q.task_id, q.weight, q.in_run, q.describe()) for q in records] == [
        ("t1", 0.5, True, "weight 0.5"),
        ("gone", 0.5, False, "weight 0.5, not in this run"),
    ]


def test_weighted_statistics_match_the_plain_ones_when_every_weight_is_one() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.random(8), rng.random(8)
    assert weighted_t_pvalue(b - a, np.ones(8)) == pytest.approx(stats.ttest_rel(b, a).pvalue)
    values = list(rng.random(10))
    plain, weighted = bootstrap_mean(values), bootstrap_mean(values, weights=[2.0] * 10)
    assert plain == weighted
    rate, wilson = weighted_rate([True, False, True, True], [1, 1, 1, 1]), wilson_interval(3, 4)
    assert rate is not None and wilson is not None
    assert (rate.rate, rate.low, rate.high) == pytest.approx((wilson.rate, wilson.low, wilson.high))


def test_a_weight_counts_a_task_less_and_zero_leaves_it_out() -> None:
    scores_a = {"t1": [0.0], "t2": [0.0], "t3": [0.0]}
    scores_b = {"t1": [1.0], "t2": [0.5], "t3": [0.2]}
    weighted = paired_comparison(scores_a, scores_b, weights={"t1": 0.25})
    assert weighted.weighted and weighted.mean_difference == pytest.approx((0.25 * 1.0 + 0.5 + 0.2) / 2.25)
    assert weighted.wilcoxon_pvalue is None and weighted.welch_pvalue is None
    left_out = paired_comparison(scores_a, scores_b, weights={"t1": 0.0})
    assert left_out.tasks == ("t2", "t3") and left_out.tasks_quarantined == 1 and left_out.tasks_excluded == 0
    assert "(1 quarantined task(s) left out)" in left_out.verdict
    assert "counted at their weight" in weighted.verdict


def test_excluding_a_task_can_change_the_verdict(row: Row) -> None:
    """B wins clearly on five tasks; a sixth where B collapses makes it inconclusive until quarantined."""
    rows = arm(row, "A", [0.3] * 5 + [0.95]) + arm(row, "B", [0.9] * 5 + [0.05])
    for r in rows:  # give the collapsing task its own id
        if r.task_id == "task-5":
            r.task_id = "flaky"
    plain = build_experiment_result("q", "", ["A", "B"], rows)
    before = compare_two_arms(plain)
    assert before is not None and before.decision.outcome == "inconclusive"
    quarantined = plain.model_copy(
        update={"quarantine": quarantine_records(_experiment(tasks=["flaky"]).quarantine, ["flaky"])}
    )
    after = compare_two_arms(quarantined)
    assert after is not None and after.decision.outcome == "better" and after.n == 5
    assert "1 quarantined task(s) left out" in after.verdict
    stats_a = variant_statistics(quarantined, "B")
    assert stats_a.score is not None and stats_a.score.n == 15 and stats_a.score.mean == pytest.approx(0.9)


def test_pass_k_leaves_quarantined_tasks_out(row: Row) -> None:
    trials = task_trials(
        [
            ("good", 0, FinalStatus.SUCCESS),
            ("good", 1, FinalStatus.SUCCESS),
            ("bad", 0, FinalStatus.FAILURE),
            ("bad", 1, FinalStatus.FAILURE),
        ]
    )
    [k1, _] = pass_k_figures(trials, [1, 2], {"bad": 0.0})
    assert (k1.pass_at_k.mean, k1.tasks, k1.tasks_quarantined) == (1.0, 1, 1)


def test_every_report_says_which_tasks_were_quarantined_and_how(row: Row) -> None:
    rows = arm(row, "A", [0.3, 0.4]) + arm(row, "B", [0.8, 0.5])
    result = build_experiment_result("q", "", ["A", "B"], rows)
    records = quarantine_records(
        Quarantine(tasks=["task-1", "nowhere"], mode="weight", weight=0.5, reason="flips"), ["task-0", "task-1"]
    )
    result = result.model_copy(update={"quarantine": records})
    summary = quarantine_summary(result)
    assert summary is not None and "task-1 counted at weight 0.5" in summary and "Not in this run: nowhere" in summary
    markdown = render_experiment_markdown(result)
    assert "## Quarantine" in markdown and "| task-1 | weight 0.5 | yes |" in markdown and "Why: flips" in markdown
    assert "task-1 (quarantined: weight 0.5)" in markdown
    assert "| Paired t-test p (weighted) |" in markdown
    html = render_experiment_html(result)
    assert 'id="quarantine"' in html and "task-1 (quarantined: weight 0.5)" in html
