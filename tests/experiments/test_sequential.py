"""The betting statistic behind adaptive replicates, against closed forms and known cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from coder_eval.experiments.sequential import (
    PRIOR_VARIANCE,
    TRUNCATION,
    confidence_sequence,
    projected_log_wealth,
    run_sequence,
    task_sequence,
    threshold,
    wealth,
)


def test_the_bar_is_two_over_alpha() -> None:
    assert threshold(0.95) == pytest.approx(40.0)
    assert threshold(0.9) == pytest.approx(20.0)


def test_no_data_is_no_evidence() -> None:
    sequence = task_sequence([], confidence=0.95, effect_size=0.2)
    assert (sequence.e_up, sequence.e_down, sequence.low, sequence.high) == (1.0, 1.0, -1.0, 1.0)
    assert sequence.mean is None and not sequence.excludes_zero()


def test_first_stake_is_agrapa_at_the_effect_of_interest() -> None:
    """Before any data the estimates are one pseudo-observation at +δ with variance 1/4, so the
    first stake is δ / (1/4 + δ²) and one difference x multiplies the wealth by 1 + λx."""
    delta = 0.2
    stake = delta / (PRIOR_VARIANCE + delta**2)
    for x in (1.0, 0.0, -1.0, 0.5):
        assert wealth([x], [0.0], up=True, effect_size=delta)[0] == pytest.approx(1 + stake * x)
        assert wealth([x], [0.0], up=False, effect_size=delta)[0] == pytest.approx(1 - stake * x)


def test_second_stake_uses_the_updated_estimates() -> None:
    """After x₁ = 1: mean (δ + 1)/2, squared deviations 1/4 + (1 − mean)², over a count of 2."""
    delta = 0.2
    first = delta / (PRIOR_VARIANCE + delta**2)
    mean = (delta + 1) / 2
    variance = (PRIOR_VARIANCE + (1 - mean) ** 2) / 2
    second = min(mean / (variance + mean**2), TRUNCATION)
    expected = (1 + first) * (1 + second)
    assert wealth([1.0, 1.0], [0.0], up=True, effect_size=delta)[0] == pytest.approx(expected)


def test_stakes_are_truncated_so_one_difference_costs_at_most_c() -> None:
    """All +1 drives the stake to its cap c / (1 + m); a −1 then leaves 1 − c of the wealth."""
    before = wealth([1.0] * 6, [0.0], up=True, effect_size=0.2)[0]
    after = wealth([1.0] * 6 + [-1.0], [0.0], up=True, effect_size=0.2)[0]
    assert after / before == pytest.approx(1 - TRUNCATION)
    # At m = 0.5 the cap is c / 1.5, and (x − m) = −1.5 for x = −1: the same worst-case factor.
    high = wealth([1.0] * 6, [0.5], up=True, effect_size=0.2)[0]
    drop = wealth([1.0] * 6 + [-1.0], [0.5], up=True, effect_size=0.2)[0]
    assert drop / high == pytest.approx(1 - TRUNCATION)


def test_a_bettor_against_the_data_never_stakes_and_keeps_its_wealth() -> None:
    """Differences all −1: the 'B is better' bettor's estimated edge turns negative, stake 0."""
    down_only = wealth([-1.0] * 8, [0.0], up=True, effect_size=0.2)[0]
    first = 0.2 / (PRIOR_VARIANCE + 0.04)
    assert down_only == pytest.approx(1 - first)  # lost only the first, prior-sized stake


def test_ties_give_no_evidence_either_way() -> None:
    sequence = task_sequence([0.0] * 10, confidence=0.95, effect_size=0.2)
    assert sequence.e_up <= 1.0 and sequence.e_down <= 1.0
    assert sequence.low < 0 < sequence.high and sequence.low == pytest.approx(-sequence.high)


def test_a_task_won_every_time_is_decided_after_enough_pairs() -> None:
    """(1 + c)ⁿ bounds the wealth; 2/α = 40 needs n ≥ log 40 / log 1.75 ≈ 6.6, so 7 pairs at least."""
    needed = math.ceil(math.log(40) / math.log1p(TRUNCATION))
    early = task_sequence([1.0] * (needed - 1), confidence=0.95, effect_size=0.2)
    late = task_sequence([1.0] * (needed + 1), confidence=0.95, effect_size=0.2)
    assert early.e_up < threshold(0.95) and not early.excludes_zero()  # (1 + c)⁶ ≈ 28.7 < 40
    assert late.excludes_zero() and late.low > 0 and late.high == 1.0
    assert late.e_up >= threshold(0.95)


def test_confidence_sequence_narrows_and_covers_the_sample_mean() -> None:
    rng = np.random.default_rng(3)
    x = rng.choice([-1.0, 0.0, 1.0], p=[0.2, 0.5, 0.3], size=200)
    widths = []
    for n in (20, 50, 200):
        low, high = confidence_sequence(x[:n], confidence=0.95, effect_size=0.2)
        assert low <= float(np.mean(x[:n])) <= high
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]


def test_confidence_sequence_covers_the_true_mean_at_all_times() -> None:
    """Anytime coverage: over 200 sequences of 60, the true mean leaves the sequence at *some*
    look in at most α of them (with room for simulation noise)."""
    rng = np.random.default_rng(5)
    true_mean = 0.1  # P(+1) = 0.3, P(−1) = 0.2
    misses = 0
    for _ in range(200):
        x = rng.choice([-1.0, 0.0, 1.0], p=[0.2, 0.5, 0.3], size=60)
        for n in range(10, 61, 10):
            low, high = confidence_sequence(x[:n], confidence=0.9, effect_size=0.2)
            if not low <= true_mean <= high:
                misses += 1
                break
    assert misses / 200 <= 0.1 + 0.03


def test_run_level_e_value_stays_small_under_no_difference() -> None:
    """Ville's inequality: under equal arms the run's e-value reaches 2/α at any look in at most α/2."""
    rng = np.random.default_rng(9)
    crossings = 0
    for _ in range(400):
        pairs = rng.choice([-1.0, 0.0, 1.0], p=[0.25, 0.5, 0.25], size=(10, 10))  # 10 tasks × 10 indices
        for looked in range(1, 11):
            run = run_sequence([list(pairs[:, i]) for i in range(looked)], confidence=0.9, effect_size=0.2)
            if run.e_up >= run.bar:
                crossings += 1
                break
    assert crossings / 400 <= 0.05 + 0.02


def test_run_level_e_value_grows_with_a_common_difference() -> None:
    rounds = [[1.0, 0.0, 1.0, 1.0, 0.0] for _ in range(4)]
    run = run_sequence(rounds, confidence=0.95, effect_size=0.2)
    assert run.confirms("better") and not run.confirms("worse")
    assert run.e_down < 1.0


def test_projection_matches_its_second_order_formula() -> None:
    """mean μ²/(2m) per pair; spread √(n) · (μ/m) · √(m − μ²); the median adds nothing."""
    n, mu, m = 50, 0.2, 0.5
    assert projected_log_wealth(n, mu, m, quantile=0.5) == pytest.approx(n * mu * mu / (2 * m))
    spread = math.sqrt(n) * (mu / m) * math.sqrt(m - mu * mu)
    assert projected_log_wealth(n, mu, m, quantile=0.9) == pytest.approx(n * mu * mu / (2 * m) + 1.2815515 * spread)
    assert projected_log_wealth(n, 0.0, m, quantile=0.9) == 0.0
    assert projected_log_wealth(0, mu, m, quantile=0.9) == 0.0


def test_bad_differences_are_refused() -> None:
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        wealth([1.5], [0.0], up=True, effect_size=0.2)
    with pytest.raises(ValueError):
        wealth([float("nan")], [0.0], up=True, effect_size=0.2)
