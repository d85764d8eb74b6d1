"""pass@k and pass^k: the estimators against hand-computed values, edge cases, and where they are shown."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from coder_eval.board.experiment_page import experiment_payload
from coder_eval.experiments.analysis import arm_trials, pass_k_figures, task_pass_k
from coder_eval.experiments.build import build_experiment_result, build_variant_aggregate
from coder_eval.experiments.passk import TaskTrials, arm_estimates, k_values, pass_at_k, pass_hat_k, task_trials
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.reports.experiment_html import render_experiment_html, render_variant_html
from coder_eval.reports.experiment_markdown import render_experiment_markdown, render_variant_markdown

Row = Callable[..., EvaluationResult]

# (n, c, k, pass@k, pass^k), each worked by hand from the binomial coefficients:
HAND = [
    # n=4, c=3: C(1,2)=0 so pass@2=1; pass^2 = C(3,2)/C(4,2) = 3/6.
    (4, 3, 2, 1.0, 0.5),
    # n=4, c=1: pass@2 = 1 − C(3,2)/C(4,2) = 1 − 3/6; pass^2 = C(1,2)/6 = 0.
    (4, 1, 2, 0.5, 0.0),
    # n=5, c=2, k=3: pass@3 = 1 − C(3,3)/C(5,3) = 1 − 1/10; pass^3 = C(2,3)/10 = 0.
    (5, 2, 3, 0.9, 0.0),
    # n=5, c=3, k=2: pass@2 = 1 − C(2,2)/C(5,2) = 1 − 1/10; pass^2 = C(3,2)/10 = 3/10.
    (5, 3, 2, 0.9, 0.3),
    # n=3, c=1, k=1: both are c/n.
    (3, 1, 1, 1 / 3, 1 / 3),
    # n=6, c=4, k=3: pass@3 = 1 − C(2,3)/C(6,3) = 1; pass^3 = C(4,3)/C(6,3) = 4/20.
    (6, 4, 3, 1.0, 0.2),
    # n=6, c=2, k=3: pass@3 = 1 − C(4,3)/20 = 1 − 4/20; pass^3 = 0.
    (6, 2, 3, 0.8, 0.0),
]


@pytest.mark.parametrize(("n", "c", "k", "at", "hat"), HAND)
def test_estimators_match_hand_computed_values(n: int, c: int, k: int, at: float, hat: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


@pytest.mark.parametrize(("n", "k"), [(1, 1), (3, 1), (3, 2), (3, 3), (10, 5)])
def test_no_success_and_all_success(n: int, k: int) -> None:
    assert pass_at_k(n, 0, k) == 0.0 and pass_hat_k(n, 0, k) == 0.0
    assert pass_at_k(n, n, k) == 1.0 and pass_hat_k(n, n, k) == 1.0


@pytest.mark.parametrize(("n", "c"), [(4, 0), (4, 1), (4, 3), (4, 4), (7, 5)])
def test_k_equal_to_n_is_any_and_all(n: int, c: int) -> None:
    """With k = n every replicate is drawn: pass@n is 'any succeeded', pass^n 'all succeeded'."""
    assert pass_at_k(n, c, n) == (1.0 if c > 0 else 0.0)
    assert pass_hat_k(n, c, n) == (1.0 if c == n else 0.0)


def test_unbiased_over_every_outcome() -> None:
    """The expectation of the estimator over Binomial(n, p) outcomes is exactly 1 − (1 − p)^k and p^k."""
    from math import comb

    n, k, p = 5, 2, 0.3
    weights = [comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
    assert sum(w * pass_at_k(n, c, k) for c, w in enumerate(weights)) == pytest.approx(1 - (1 - p) ** k)
    assert sum(w * pass_hat_k(n, c, k) for c, w in enumerate(weights)) == pytest.approx(p**k)


@pytest.mark.parametrize(("n", "c", "k"), [(2, 1, 3), (3, 4, 1), (3, -1, 1), (3, 1, 0)])
def test_undefined_cases_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="pass@k needs"):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError, match="pass@k needs"):
        pass_hat_k(n, c, k)


def test_k_values_follow_the_repeats() -> None:
    assert k_values(0) == []
    assert k_values(1) == [1]
    assert k_values(3) == [1, 2, 3]
    assert k_values(4) == [1, 2, 3, 4]
    assert k_values(5) == [1, 2, 3, 5]
    assert k_values(12) == [1, 2, 3, 5, 10, 12]


def test_trials_strip_and_ungraded_replicates() -> None:
    statuses = [FinalStatus.SUCCESS, FinalStatus.FAILURE, FinalStatus.ERROR, FinalStatus.NOT_GRADED]
    [trials] = task_trials(("t", i, s) for i, s in reversed(list(enumerate(statuses))))
    assert trials.strip == "✓✗!·"
    assert (trials.n, trials.c) == (3, 1)  # the ungraded replicate is no trial; the error is a failure
    assert trials.at(4) is None  # k > n: no estimate
    assert trials.at(3) == (1.0, 0.0)
    assert TaskTrials.from_strip("t", trials.strip) == trials
    with pytest.raises(ValueError, match="unknown marks"):
        TaskTrials.from_strip("t", "✓x")


def test_arm_figure_is_the_mean_over_tasks_with_enough_replicates() -> None:
    tasks = [
        TaskTrials.from_strip("a", "✓✗✓✓"),  # n=4 c=3: pass@2 1.0, pass^2 0.5
        TaskTrials.from_strip("b", "✗✗✓✗"),  # n=4 c=1: pass@2 0.5, pass^2 0.0
        TaskTrials.from_strip("c", "✓"),  # n=1: only k=1
    ]
    by_k = {e.k: e for e in arm_estimates(tasks)}
    assert sorted(by_k) == [1, 2, 3, 4]
    assert by_k[1].pass_at_k == pytest.approx((0.75 + 0.25 + 1.0) / 3) and by_k[1].tasks == 3
    assert by_k[2].pass_at_k == pytest.approx(0.75) and by_k[2].pass_hat_k == pytest.approx(0.25)
    assert (by_k[2].tasks, by_k[2].tasks_excluded) == (2, 1)
    figures = {f.k: f for f in pass_k_figures(tasks)}
    assert figures[2].pass_at_k.mean == pytest.approx(0.75)
    assert figures[2].pass_at_k.low <= 0.75 <= figures[2].pass_at_k.high
    assert figures[2].tasks_excluded == 1


def test_task_interval_is_the_wilson_interval_mapped_through_k() -> None:
    from coder_eval.experiments.stats import wilson_interval

    trials = TaskTrials.from_strip("a", "✓✗✓✓")
    figure = task_pass_k(trials, 2)
    rate = wilson_interval(3, 4)
    assert figure is not None and rate is not None
    assert figure.pass_at_k.rate == 1.0 and figure.pass_hat_k.rate == 0.5
    assert figure.pass_at_k.low == pytest.approx(1 - (1 - rate.low) ** 2)
    assert figure.pass_hat_k.high == pytest.approx(rate.high**2)
    assert task_pass_k(trials, 5) is None


def _rows(row: Row, pattern: dict[str, dict[str, str]]) -> list[EvaluationResult]:
    return [
        row(task, arm, 1.0 if mark == "✓" else 0.0, i)
        for arm, tasks in pattern.items()
        for task, strip in tasks.items()
        for i, mark in enumerate(strip)
    ]


PATTERN = {"A": {"t1": "✓✗✓✓", "t2": "✗✗✗✗"}, "B": {"t1": "✓✓✓✓", "t2": "✗✓✗✗"}}


def test_records_reports_and_board_show_pass_k(row: Row) -> None:
    rows = _rows(row, PATTERN)
    result = build_experiment_result("x", "", ["A", "B"], rows)
    by_k = {e.k: e for e in result.variant_aggregates["A"].pass_k}
    assert by_k[2].pass_at_k == pytest.approx(0.5) and by_k[2].pass_hat_k == pytest.approx(0.25)
    assert [t.strip for t in arm_trials(result, "B")] == ["✓✓✓✓", "✗✓✗✗"]
    dumped = result.variant_aggregates["B"].model_dump(mode="json")
    assert dumped["pass_k"][-1] == {"k": 4, "pass_at_k": 1.0, "pass_hat_k": 0.5, "tasks": 2, "tasks_excluded": 0}

    markdown = render_experiment_markdown(result)
    assert "## pass@k and pass^k" in markdown and "| t1 | ✓✗✓✓ |" in markdown
    assert "| A | 2 | 0.500 |" in markdown
    html = render_experiment_html(result)
    assert "pass@k and pass^k" in html and "✗✓✗✗" in html

    aggregate = build_variant_aggregate("A", rows)
    variant_md = render_variant_markdown(aggregate, rows)
    assert "| t1 | ✓✗✓✓ | 1.000" in variant_md
    assert "✓✗✓✓" in render_variant_html(aggregate, rows)

    payload = experiment_payload("run-1", result)
    assert payload["k"] == 4
    arm_a = payload["arms"][0]["pass_k"]
    assert [f["k"] for f in arm_a] == [1, 2, 3, 4] and arm_a[1]["pass_hat_k"]["mean"] == pytest.approx(0.25)
    task = payload["tasks"][0]["pass_k"]["A"]
    assert task["strip"] == "✓✗✓✓" and task["pass_at_k"]["rate"] == 1.0 and task["pass_hat_k"]["rate"] == 0.0


def test_one_replicate_shows_k_one_only(row: Row) -> None:
    rows = _rows(row, {"A": {"t1": "✓", "t2": "✗"}})
    result = build_experiment_result("x", "", ["A"], rows)
    assert [e.k for e in result.variant_aggregates["A"].pass_k] == [1]
    markdown = render_experiment_markdown(result)
    assert "pass@2" not in markdown and "Per task, at k = 1" in markdown


def test_nothing_graded_has_no_section(row: Row) -> None:
    rows = [row("t1", "A", None, 0), row("t1", "A", None, 1)]
    result = build_experiment_result("x", "", ["A"], rows)
    assert result.variant_aggregates["A"].pass_k == []
    assert "pass@k" not in render_experiment_markdown(result)
