"""When adaptive replicates stop: the rules read after every round, pure (no engine, no files).

An adaptive run (`--repeats auto`) compares two arms. After each round it looks at every task's
paired replicates and decides, per task, whether one more replicate of each arm could still
change the paired verdict. The rules, in the order they are tried:

- `verdict` (the run): the comparison is decided: the verdict rule of `verdict.py` (enough tasks
  and replicates, the paired t-test and the bootstrap interval agree) *and* the run-level
  sequential test of `sequential.py` (whose error rate holds however often it is looked at)
  confirm the same direction. Every task still running stops.
- `futile` (the run): even if the true difference were as large as the far end of the current
  interval, the remaining replicates up to `max_repeats` would be unlikely to bring either the
  paired test or the sequential test to a decision. Every task still running stops. Stopping
  for futility never makes a "better" or "worse" more likely, so it cannot raise the error rate;
  it can only cost power, which `bench/adaptive.py` measures.
- `decided` (a task): the task's confidence sequence for its own mean difference excludes zero,
  so its direction is known; more replicates would only refine its size.
- `negligible` (a task): the task's confidence sequence lies inside ±effect_size: whatever its
  difference is, it is smaller than the effect the user said matters.
- `max-repeats` (a task): it ran `max_repeats` replicates per arm.

The two run-level rules need a comparison that can be decided at all (at least `MIN_TASKS` tasks);
with fewer tasks only the per-task rules apply.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from scipy.stats import t as student_t  # type: ignore[import-untyped]

from coder_eval.experiments.adaptive_settings import AdaptiveSettings
from coder_eval.experiments.sequential import (
    RunSequence,
    TaskSequence,
    projected_log_wealth,
    run_sequence,
    task_sequence,
)
from coder_eval.experiments.stats import PairedComparison, paired_comparison
from coder_eval.experiments.verdict import MIN_REPLICATES, MIN_TASKS, SequentialEvidence, Verdict

__all__ = ["STOP_RULES", "AdaptiveSettings", "Review", "Stop", "StopRule", "TaskReplicates", "review"]

StopRule = Literal["verdict", "futile", "decided", "negligible", "max-repeats"]
STOP_RULES: tuple[StopRule, ...] = ("verdict", "futile", "decided", "negligible", "max-repeats")

FUTILITY_QUANTILE = 0.9
"""The run is futile only when even the luckiest 10% of continuations at the most favourable
difference in the interval would fall short (conditional power below 10%)."""
RULE_OF_THREE = 3.0
"""With no discordant pair among N, up to about 3/N of pairs may still differ (95% upper bound):
the projection never assumes a smaller difference than that, so a few tied rounds are not futile."""


@dataclass(frozen=True)
class TaskReplicates:
    """One task's replicates so far: replicate index → score (None when not measured) per arm."""

    task_id: str
    a: Mapping[int, float | None]
    b: Mapping[int, float | None]

    @property
    def run(self) -> int:
        """Replicates run in the arm that ran fewer (a round adds one to each arm)."""
        return min(len(self.a), len(self.b))

    def paired(self) -> dict[int, float]:
        """Replicate index → B − A, for each index both arms measured, in index order."""
        out = {}
        for index in sorted(set(self.a) & set(self.b)):
            score_a, score_b = self.a[index], self.b[index]
            if score_a is not None and score_b is not None:
                out[index] = float(score_b) - float(score_a)
        return out

    def differences(self) -> list[float]:
        """B − A for each replicate index both arms measured, in index order."""
        return list(self.paired().values())

    def scores(self, arm: Mapping[int, float | None]) -> list[float]:
        return [float(s) for _, s in sorted(arm.items()) if s is not None]


@dataclass(frozen=True)
class Stop:
    rule: StopRule
    detail: str


@dataclass
class Review:
    """What one look at the data found: the statistics and which tasks stop now."""

    comparison: PairedComparison
    decision: Verdict
    run: RunSequence
    tasks: dict[str, TaskSequence]
    stops: dict[str, Stop] = field(default_factory=dict)


def sequential_evidence(
    replicates: Sequence[TaskReplicates], settings: AdaptiveSettings
) -> tuple[RunSequence, SequentialEvidence]:
    """The run-level sequential test over every task's pairs, grouped by replicate index."""
    by_index: dict[int, list[float]] = {}
    for task in replicates:
        for index, difference in task.paired().items():
            by_index.setdefault(index, []).append(difference)
    rounds = [by_index[i] for i in sorted(by_index)]
    run = run_sequence(rounds, confidence=settings.confidence, effect_size=settings.effect_size)
    return run, SequentialEvidence(e_better=run.e_up, e_worse=run.e_down, bar=run.bar)


def task_sequences(replicates: Sequence[TaskReplicates], settings: AdaptiveSettings) -> dict[str, TaskSequence]:
    return {
        t.task_id: task_sequence(t.differences(), confidence=settings.confidence, effect_size=settings.effect_size)
        for t in replicates
    }


def compare(
    replicates: Sequence[TaskReplicates], settings: AdaptiveSettings, labels: tuple[str, str] = ("A", "B")
) -> tuple[PairedComparison, RunSequence, dict[str, TaskSequence]]:
    """The paired comparison (with the sequential evidence) of what was measured so far."""
    sequences = task_sequences(replicates, settings)
    run, evidence = sequential_evidence(replicates, settings)
    comparison = paired_comparison(
        {t.task_id: t.scores(t.a) for t in replicates},
        {t.task_id: t.scores(t.b) for t in replicates},
        label_a=labels[0],
        label_b=labels[1],
        confidence=settings.confidence,
        sequential=evidence,
        side_tests=False,
    )
    return comparison, run, sequences


def review(
    replicates: Sequence[TaskReplicates],
    active: set[str],
    settings: AdaptiveSettings,
    labels: tuple[str, str] = ("A", "B"),
) -> Review:
    """Look at every task's replicates; say which of the `active` tasks stop, and by which rule."""
    comparison, run, sequences = compare(replicates, settings, labels)
    decision = comparison.decision
    result = Review(comparison, decision, run, sequences)
    running = sorted(active)
    if comparison.n >= MIN_TASKS:
        if decision.outcome in ("better", "worse"):
            result.stops = {t: Stop("verdict", f"the comparison is decided: {decision.outcome}") for t in running}
            return result
        futile = futility(replicates, active, settings, comparison, run)
        if futile is not None:
            result.stops = {t: Stop("futile", futile) for t in running}
            return result
    by_id = {t.task_id: t for t in replicates}
    for task_id in running:
        stop = task_stop(by_id[task_id], sequences[task_id], settings)
        if stop is not None:
            result.stops[task_id] = stop
    return result


def task_stop(task: TaskReplicates, sequence: TaskSequence, settings: AdaptiveSettings) -> Stop | None:
    """The per-task rule that stops this task now, if any."""
    interval = f"{settings.confidence:.0%} confidence sequence [{sequence.low:+.3f}, {sequence.high:+.3f}]"
    if task.run >= settings.max_repeats:
        return Stop("max-repeats", f"{task.run} replicates per arm, the cap")
    if sequence.side is not None:
        return Stop("decided", f"{sequence.side} is better on this task: {interval}")
    if sequence.within(settings.effect_size):
        return Stop("negligible", f"{interval} lies inside ±{settings.effect_size:g}")
    return None


def futility(
    replicates: Sequence[TaskReplicates],
    active: set[str],
    settings: AdaptiveSettings,
    comparison: PairedComparison,
    run: RunSequence,
) -> str | None:
    """Why no remaining replicates up to the cap could likely decide the comparison, or None.

    Each direction is given its best case: the true mean difference as large as the far end of
    the current interval, and never below 3/N over N pairs (differences rare enough not to have
    shown up yet). The direction stays open if, at that difference, the remaining pairs
    could lift the sequential e-value to its bar (`sequential.growth_per_pair`, a generous
    estimate) and the paired t-test over the tasks could reach significance with every task at
    `max_repeats` replicates. Only when neither direction stays open is the run futile."""
    if comparison.interval is None or comparison.min_replicates < MIN_REPLICATES:
        return None
    remaining = sum(settings.max_repeats - t.run for t in replicates if t.task_id in active)
    differences = [d for t in replicates for d in t.differences()]
    second_moment = sum(d * d for d in differences) / len(differences) if differences else 1.0
    bar = math.log(run.bar)
    unseen = RULE_OF_THREE / max(1, len(differences))
    reasons = []
    for up in (True, False):
        far = comparison.interval.high if up else -comparison.interval.low
        effect, moment = (far, second_moment) if far >= unseen else (unseen, max(second_moment, unseen))
        logged = run.log_up if up else run.log_down
        gain = projected_log_wealth(remaining, effect, moment, quantile=FUTILITY_QUANTILE)
        reachable_e = logged >= bar or logged + gain >= bar
        reachable_t = _t_reachable(comparison, effect, settings)
        if reachable_e and reachable_t:
            return None
        reasons.append("the sequential test" if not reachable_e else "the paired t-test")
    arms = f"even at the far ends of the interval [{comparison.interval.low:+.2f}, {comparison.interval.high:+.2f}]"
    return (
        f"{arms}, {remaining} more pair(s) up to {settings.max_repeats} replicates could not likely decide it "
        f"({reasons[0]} in B's favour, {reasons[1]} in A's)"
    )


def _t_reachable(comparison: PairedComparison, effect: float, settings: AdaptiveSettings) -> bool:
    """Whether a paired t-test over these tasks could reach p < α at mean difference `effect` with
    every task at the cap: the verdict's power algebra at power 0.5 (the most hopeful reading),
    with Student's critical value for n − 1 degrees of freedom, as the test itself uses."""
    if effect <= 0:
        return False
    n = comparison.n
    differences = comparison.differences
    mean = sum(differences) / n
    spread = sum((x - mean) ** 2 for x in differences) / (n - 1) if n > 1 else 0.0
    within = comparison.replicate_variance or 0.0
    between = max(0.0, spread - 2 * within / max(1, comparison.min_replicates))
    if n < 2:
        return False
    critical = float(student_t.ppf(1 - (1 - settings.confidence) / 2, n - 1))
    return n * effect * effect / (critical * critical) > between + 2 * within / settings.max_repeats
