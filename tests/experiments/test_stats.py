"""The experiment statistics equal SciPy on the same numbers, and the verdicts read correctly."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats as sps

from coder_eval.experiments.analysis import compare_two_arms
from coder_eval.experiments.build import build_experiment_result
from coder_eval.experiments.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_mean,
    paired_comparison,
    signed,
    welch_pvalue,
    wilson_interval,
)
from coder_eval.models.results import EvaluationResult

SAMPLE = [0.2, 0.45, 0.5, 0.61, 0.9, 0.75, 0.33]


def scipy_bootstrap(values: list[float], method: str = "percentile") -> tuple[float, float]:
    result = sps.bootstrap(
        (np.asarray(values),),
        np.mean,
        confidence_level=0.95,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method=method,
        vectorized=True,
        rng=np.random.default_rng(BOOTSTRAP_SEED),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


# --- bootstrap --------------------------------------------------------------------------------


def test_bootstrap_matches_scipy() -> None:
    estimate = bootstrap_mean(SAMPLE)
    assert estimate is not None
    assert estimate.mean == pytest.approx(np.mean(SAMPLE))
    assert (estimate.low, estimate.high) == pytest.approx(scipy_bootstrap(SAMPLE))
    assert estimate.low < estimate.mean < estimate.high
    assert not estimate.degenerate


def test_bootstrap_bca_matches_scipy() -> None:
    estimate = bootstrap_mean(SAMPLE, method="BCa")
    assert estimate is not None
    assert (estimate.low, estimate.high) == pytest.approx(scipy_bootstrap(SAMPLE, "BCa"))


def test_bootstrap_is_reproducible() -> None:
    assert bootstrap_mean(SAMPLE) == bootstrap_mean(SAMPLE)


@pytest.mark.parametrize("values", [[0.7], [0.4, 0.4, 0.4]])
def test_degenerate_sample_is_the_point_itself(values: list[float]) -> None:
    estimate = bootstrap_mean(values)
    assert estimate is not None
    assert estimate.low == estimate.mean == estimate.high == pytest.approx(values[0])
    assert estimate.degenerate


def test_empty_sample_has_no_estimate() -> None:
    assert bootstrap_mean([]) is None


# --- Wilson -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "n"), [(7, 9), (0, 5), (5, 5), (1, 1), (13, 40)])
def test_wilson_matches_scipy(k: int, n: int) -> None:
    expected = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    estimate = wilson_interval(k, n)
    assert estimate is not None
    assert estimate.rate == k / n
    assert (estimate.low, estimate.high) == pytest.approx((expected.low, expected.high))
    assert 0.0 <= estimate.low <= estimate.rate <= estimate.high <= 1.0


def test_wilson_known_values() -> None:
    # 7/9 at 95 %: the Wilson bounds are 0.4526 and 0.9368 (textbook formula with z = 1.96).
    estimate = wilson_interval(7, 9)
    assert estimate is not None
    assert estimate.low == pytest.approx(0.4526, abs=1e-4)
    assert estimate.high == pytest.approx(0.9368, abs=1e-4)
    zero = wilson_interval(0, 5)
    assert zero is not None and zero.low == 0.0 and zero.high > 0.0


def test_wilson_without_trials_is_unknown() -> None:
    assert wilson_interval(0, 0) is None


# --- paired comparison ------------------------------------------------------------------------


def per_task(results: list[EvaluationResult], variant: str) -> dict[str, list[float]]:
    table: dict[str, list[float]] = {}
    for r in results:
        if r.variant_id == variant and r.weighted_score is not None:
            table.setdefault(r.task_id, []).append(r.weighted_score)
    return table


def test_paired_statistics_match_scipy(indistinguishable: list[EvaluationResult]) -> None:
    a, b = per_task(indistinguishable, "A"), per_task(indistinguishable, "B")
    comparison = paired_comparison(a, b)
    tasks = sorted(a)
    mean_a = np.array([np.mean(a[t]) for t in tasks])
    mean_b = np.array([np.mean(b[t]) for t in tasks])
    diffs = mean_b - mean_a
    assert comparison.differences == pytest.approx(tuple(diffs))
    assert comparison.mean_difference == pytest.approx(float(np.mean(diffs)))
    assert comparison.interval is not None
    assert (comparison.interval.low, comparison.interval.high) == pytest.approx(scipy_bootstrap(list(diffs)))
    assert comparison.t_pvalue == pytest.approx(sps.ttest_rel(mean_b, mean_a).pvalue)
    assert comparison.wilcoxon_pvalue == pytest.approx(sps.wilcoxon(diffs).pvalue)
    flat_a = [s for t in tasks for s in a[t]]
    flat_b = [s for t in tasks for s in b[t]]
    assert comparison.welch_pvalue == pytest.approx(sps.ttest_ind(flat_b, flat_a, equal_var=False).pvalue)
    assert (comparison.b_better, comparison.a_better, comparison.ties) == (3, 3, 0)


def test_clear_winner_verdict(clear_win: list[EvaluationResult]) -> None:
    comparison = paired_comparison(per_task(clear_win, "A"), per_task(clear_win, "B"))
    assert comparison.interval is not None and comparison.interval.low > 0
    assert comparison.verdict.startswith("B better than A on 6 of 6 tasks (N = 6 tasks × ")
    assert "mean +0.60, 95% CI [+0." in comparison.verdict and "paired t-test p = " in comparison.verdict
    assert comparison.decision.outcome == "better"
    assert comparison.t_pvalue is not None and comparison.t_pvalue < 0.001
    assert comparison.wilcoxon_pvalue == pytest.approx(0.03125)


def test_clear_winner_in_the_other_direction(clear_win: list[EvaluationResult]) -> None:
    comparison = paired_comparison(per_task(clear_win, "B"), per_task(clear_win, "A"), label_a="B", label_b="A")
    assert comparison.mean_difference is not None and comparison.mean_difference < 0
    assert comparison.verdict.startswith("B better than A on 6 of 6 tasks (")
    assert comparison.decision.outcome == "worse"


def test_indistinguishable_verdict(indistinguishable: list[EvaluationResult]) -> None:
    comparison = paired_comparison(per_task(indistinguishable, "A"), per_task(indistinguishable, "B"))
    assert comparison.interval is not None
    assert comparison.interval.low < 0 < comparison.interval.high
    assert comparison.verdict.startswith("Inconclusive (B vs A): neither the paired test nor the interval")
    assert "mean +0.00, 95% CI [−0." in comparison.verdict
    assert "replicates" in comparison.decision.more_replicates


def test_identical_arms(clear_win: list[EvaluationResult]) -> None:
    scores = per_task(clear_win, "A")
    comparison = paired_comparison(scores, scores)
    assert comparison.ties == 6
    assert comparison.t_pvalue is None and comparison.wilcoxon_pvalue is None
    assert comparison.verdict.startswith("No difference between A and B: identical mean scores on all 6 tasks (N = 6")


def test_wilcoxon_needs_six_tasks() -> None:
    a = {f"t{i}": [0.2 + 0.1 * i] for i in range(5)}
    b = {f"t{i}": [0.5 + 0.07 * i] for i in range(5)}
    comparison = paired_comparison(a, b)
    assert comparison.wilcoxon_pvalue is None
    assert comparison.t_pvalue is not None


def test_too_few_tasks_and_exclusions() -> None:
    comparison = paired_comparison({"x": [1.0], "y": [0.5]}, {"x": [0.5], "z": [0.1]}, unmeasured_rows=2)
    assert comparison.n == 1 and comparison.tasks_excluded == 2
    assert comparison.verdict.startswith(
        "Inconclusive (B vs A): 1 task(s) × 1 replicate(s) measured in both arms, below the minimum of 5 tasks"
    )
    assert "measure at least 5 tasks" in comparison.verdict
    assert comparison.verdict.endswith("(2 unmeasured rows excluded).")


def test_unmeasured_rows_are_excluded_and_counted(
    clear_win: list[EvaluationResult], row: Callable[..., EvaluationResult]
) -> None:
    rows = [*clear_win, row("task-0", "B", None, 3), row("task-9", "A", None, 0)]
    result = build_experiment_result("exp", "", ["A", "B"], rows)
    comparison = compare_two_arms(result)
    assert comparison is not None
    assert comparison.n == 6 and comparison.unmeasured_rows == 2
    assert comparison.verdict.endswith("(2 unmeasured rows excluded).")
    assert comparison.mean_difference == pytest.approx(3.59 / 6)


def test_welch_undefined_without_spread() -> None:
    assert welch_pvalue([0.5, 0.5], [0.5, 0.5]) is None
    assert welch_pvalue([0.5], [0.1, 0.2]) is None


@pytest.mark.parametrize(("value", "text"), [(0.123, "+0.12"), (-0.05, "−0.05"), (-0.001, "+0.00"), (0.0, "+0.00")])
def test_signed(value: float, text: str) -> None:
    assert signed(value) == text
