"""The verdict rule: decided only when the paired test and the interval agree, with enough tasks and replicates."""

from __future__ import annotations

from coder_eval.experiments.stats import paired_comparison
from coder_eval.experiments.verdict import MIN_REPLICATES, MIN_TASKS, Evidence, decide


def _evidence(**over: object) -> Evidence:
    base: dict[str, object] = dict(
        label_a="A", label_b="B", tasks=8, min_replicates=3, mean_difference=0.15, low=0.06, high=0.25,
        t_pvalue=0.01, ties=0, confidence=0.95,
    )  # fmt: skip
    return Evidence(**{**base, **over})  # type: ignore[arg-type]


def test_the_issue_case_an_interval_without_a_test_is_inconclusive() -> None:
    """'better, 95% CI [+0.06, +0.25]' next to p = 0.36 on 2 tasks must not read as better."""
    verdict = decide(_evidence(tasks=2, t_pvalue=0.36))
    assert verdict.outcome == "inconclusive" and "below the minimum" in verdict.why
    assert decide(_evidence(t_pvalue=0.36)).outcome == "inconclusive"  # enough tasks, but the test disagrees


def test_agreement_decides_in_either_direction() -> None:
    assert decide(_evidence()).outcome == "better"
    assert decide(_evidence(mean_difference=-0.15, low=-0.25, high=-0.06)).outcome == "worse"


def test_a_significant_test_with_an_interval_across_zero_is_inconclusive() -> None:
    verdict = decide(_evidence(low=-0.01, t_pvalue=0.04))
    assert verdict.outcome == "inconclusive" and "interval includes zero" in verdict.why


def test_the_minimum_replicates_apply() -> None:
    assert decide(_evidence(min_replicates=MIN_REPLICATES - 1)).outcome == "inconclusive"
    assert decide(_evidence(tasks=MIN_TASKS, min_replicates=MIN_REPLICATES)).outcome == "better"


def test_a_noisy_close_comparison_gets_a_replicate_estimate() -> None:
    tasks = [f"t{i}" for i in range(6)]
    a = {t: [0.50, 0.30, 0.70] for t in tasks}
    b = {t: [0.60, 0.40, 0.80] if i % 2 else [0.45, 0.25, 0.65] for i, t in enumerate(tasks)}
    comparison = paired_comparison(a, b)
    decision = comparison.decision
    assert decision.outcome == "inconclusive"
    assert decision.more_replicates is not None and "replicates per arm" in decision.more_replicates
    assert "paired t-test p = " in comparison.verdict and "N = 6 tasks" in comparison.verdict


def test_one_replicate_says_the_noise_is_unknown() -> None:
    tasks = [f"t{i}" for i in range(6)]
    a = {t: [0.5 + 0.03 * (i % 2)] for i, t in enumerate(tasks)}
    comparison = paired_comparison(a, {t: [0.4 + 0.05 * (i % 3)] for i, t in enumerate(tasks)})
    assert comparison.decision.outcome == "inconclusive"
    assert "--repeats 2" in (comparison.decision.more_replicates or "")


def test_the_same_difference_on_every_task_is_decided() -> None:
    """No spread means no finite t-test p, yet a +1.0 on all five tasks is the clearest result there is."""
    verdict = decide(_evidence(tasks=5, mean_difference=1.0, low=1.0, high=1.0, t_pvalue=None))
    assert verdict.outcome == "better"
    assert decide(_evidence(tasks=4, mean_difference=1.0, low=1.0, high=1.0, t_pvalue=None)).outcome == "inconclusive"
