"""The rules that stop adaptive replicates, on hand-made outcomes whose answer is known."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from coder_eval.experiments.sequential import task_sequence, threshold
from coder_eval.experiments.stopping import AdaptiveSettings, TaskReplicates, review, task_stop
from coder_eval.experiments.verdict import Evidence, SequentialEvidence, decide, sentence

Outcome = Callable[[int, int], float | None]
"""(task index, replicate index) → score."""


def play(a: Outcome, b: Outcome, tasks: int, settings: AdaptiveSettings) -> tuple[str, int, list[tuple[str, str, int]]]:
    """Run the rounds on fixed outcomes: (final verdict, units spent, [(task, rule, replicates)])."""
    ids = [f"t{i}" for i in range(tasks)]
    reps = dict.fromkeys(ids, settings.min_repeats)
    active = set(ids)
    stops: list[tuple[str, str, int]] = []
    outcome = "inconclusive"
    while active:
        replicates = [
            TaskReplicates(t, {r: a(i, r) for r in range(reps[t])}, {r: b(i, r) for r in range(reps[t])})
            for i, t in enumerate(ids)
        ]
        looked = review(replicates, active, settings)
        outcome = looked.decision.outcome
        for task_id, stop in sorted(looked.stops.items()):
            active.discard(task_id)
            stops.append((task_id, stop.rule, reps[task_id]))
        for task_id in active:
            reps[task_id] += 1
    return outcome, 2 * sum(reps.values()), stops


def test_a_clear_winner_stops_every_task_after_the_first_round() -> None:
    outcome, units, stops = play(lambda i, r: 0.0, lambda i, r: 1.0, 5, AdaptiveSettings(max_repeats=8))
    assert outcome == "better" and units == 20  # 2 replicates × 5 tasks × 2 arms, not 80
    assert {rule for _, rule, _ in stops} == {"verdict"}


def test_the_other_direction_is_worse() -> None:
    outcome, units, _ = play(lambda i, r: 1.0, lambda i, r: 0.0, 6, AdaptiveSettings(max_repeats=8))
    assert outcome == "worse" and units == 24


def test_identical_arms_stop_as_futile_once_no_hidden_difference_could_decide() -> None:
    """Ties everywhere: after round 1 (10 pairs) a difference of 3/10 might still hide, and 20 more
    pairs could show it; after round 2 (15 pairs, 3/15) the 15 left could not."""
    outcome, units, stops = play(lambda i, r: 1.0, lambda i, r: 1.0, 5, AdaptiveSettings(max_repeats=6))
    assert outcome == "no difference" and units == 30
    assert {(rule, n) for _, rule, n in stops} == {("futile", 3)}


def test_per_task_rules_when_the_verdict_cannot_be_decided() -> None:
    """B wins three tasks every time and ties two: the paired t-test over five constant differences
    (1, 1, 1, 0, 0) never reaches p < 0.05, so the run never decides. The won tasks stop once their
    own confidence sequences exclude zero (7 pairs: (1 + c)⁷ passes 40); the tied ones run to the cap."""
    outcome, units, stops = play(
        lambda i, r: 0.0, lambda i, r: 1.0 if i < 3 else 0.0, 5, AdaptiveSettings(max_repeats=8)
    )
    assert outcome == "inconclusive"
    assert sorted(stops) == [
        ("t0", "decided", 7),
        ("t1", "decided", 7),
        ("t2", "decided", 7),
        ("t3", "max-repeats", 8),
        ("t4", "max-repeats", 8),
    ]
    assert units == 2 * (3 * 7 + 2 * 8)


def test_below_five_tasks_only_the_per_task_rules_apply() -> None:
    outcome, units, stops = play(lambda i, r: 0.0, lambda i, r: 1.0, 2, AdaptiveSettings(max_repeats=10))
    assert outcome == "inconclusive"  # two tasks can never decide a verdict
    assert [(rule, n) for _, rule, n in stops] == [("decided", 7), ("decided", 7)]
    assert units == 28  # of the fixed design's 40


def test_a_negligible_task_stops_when_its_sequence_fits_inside_the_effect_size() -> None:
    """Zeros only: the sequence shrinks around 0 and fits inside ±0.5 after a few pairs."""
    settings = AdaptiveSettings(max_repeats=40, effect_size=0.5)
    task = TaskReplicates("t", dict.fromkeys(range(12), 0.5), dict.fromkeys(range(12), 0.5))
    sequence = task_sequence(task.differences(), confidence=0.95, effect_size=0.5)
    stop = task_stop(task, sequence, settings)
    assert stop is not None and stop.rule == "negligible" and "inside ±0.5" in stop.detail


def test_unmeasured_replicates_count_against_the_cap_but_not_as_pairs() -> None:
    task = TaskReplicates("t", {0: 0.0, 1: None, 2: 1.0}, {0: 1.0, 1: 1.0, 2: None})
    assert task.run == 3 and task.differences() == [1.0]
    assert task.paired() == {0: 1.0}


def test_a_decided_test_without_the_sequential_test_is_inconclusive() -> None:
    """The t-test and the interval agree, but an adaptive run's e-value is below its bar."""
    evidence = Evidence(
        label_a="A",
        label_b="B",
        tasks=8,
        min_replicates=3,
        mean_difference=0.15,
        low=0.06,
        high=0.25,
        t_pvalue=0.01,
        ties=0,
        confidence=0.95,
        sequential=SequentialEvidence(e_better=12.0, e_worse=0.1, bar=40.0),
    )
    verdict = decide(evidence)
    assert verdict.outcome == "inconclusive" and "sequential test" in verdict.why and "12" in verdict.why
    confirmed = Evidence(**{**evidence.__dict__, "sequential": SequentialEvidence(55.0, 0.1, 40.0)})
    assert decide(confirmed).outcome == "better"
    assert "sequential e-value 55 (bar 40)" in sentence(confirmed, decide(confirmed))


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        AdaptiveSettings(max_repeats=1)
    with pytest.raises(ValueError):
        AdaptiveSettings(confidence=1.0)
    with pytest.raises(ValueError):
        AdaptiveSettings(effect_size=0.0)
    assert threshold(AdaptiveSettings().confidence) == 40.0
