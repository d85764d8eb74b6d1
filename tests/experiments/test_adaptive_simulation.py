"""Adaptive replicates against the fixed design on simulated arms of known success rates.

Both designs read the same draws (experiments/simulation.py). The claims, each checked with a
margin for simulation noise: the adaptive run spends fewer units; where the fixed design decides a
large difference the adaptive one reaches the same verdict; and its empirical error rate stays
within the stated 1 − confidence. bench/adaptive.py prints the full table.
"""

from __future__ import annotations

from coder_eval.experiments.simulation import Scenario, simulate, standard_scenarios
from coder_eval.experiments.stopping import AdaptiveSettings

SETTINGS = AdaptiveSettings(max_repeats=10, confidence=0.95, effect_size=0.2)


def _scenario(name: str) -> Scenario:
    return next(s for s in standard_scenarios(10) if s.name == name)


def test_no_difference_keeps_the_error_rate_and_spends_less() -> None:
    tally = simulate(_scenario("no difference"), SETTINGS, 120, seed=21)
    assert tally.adaptive_errors / tally.trials <= 0.05 + 0.03  # α = 0.05, plus noise on 120 draws
    assert tally.units < 0.8 * tally.fixed_units
    assert tally.agree / tally.trials >= 0.9
    assert set(tally.rules) <= {"futile", "verdict", "decided", "negligible", "max-repeats"}


def test_a_clear_difference_is_found_as_the_fixed_design_finds_it_for_a_third_of_the_units() -> None:
    tally = simulate(_scenario("B better by 0.4"), SETTINGS, 60, seed=22)
    assert tally.fixed_decided == tally.trials  # the fixed design decides every time here
    assert tally.agree / tally.trials >= 0.95
    assert tally.adaptive_errors == 0
    assert tally.units < 0.5 * tally.fixed_units
    assert tally.rules["verdict"] >= 0.9 * tally.trials * 10


def test_the_wrong_direction_is_never_claimed() -> None:
    tally = simulate(_scenario("B worse by 0.3"), SETTINGS, 60, seed=23)
    assert tally.adaptive_errors == 0
    assert tally.adaptive_decided / tally.trials >= 0.85
    assert tally.units < 0.7 * tally.fixed_units


def test_deterministic_ties_stop_halfway() -> None:
    """Identical pass/fail on every replicate: futile once a hidden difference of 3/N could not
    reach the bar in the pairs left (after round 4 of 10 with ten tasks)."""
    tally = simulate(_scenario("no difference, deterministic tasks"), SETTINGS, 3, seed=24)
    assert tally.adaptive_decided == 0 and tally.rules == {"futile": 30}
    assert tally.units == 3 * 100 and tally.fixed_units == 3 * 200
