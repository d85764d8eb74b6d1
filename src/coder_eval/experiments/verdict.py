"""The one verdict rule for comparing two arms, and how many replicates would likely settle it.

A comparison is decided only when all of these hold:

- at least `MIN_TASKS` tasks were measured in both arms, each with at least `MIN_REPLICATES`
  replicates per arm (fewer cannot tell the agent's run-to-run noise from the change);
- the paired t-test over the per-task differences gives p below 1 − confidence (a difference
  that is the same on every task has no spread, so the test's limit p → 0 counts);
- the bootstrap interval of the mean difference excludes zero, on the same side as the mean.

Otherwise the verdict is `inconclusive`, and says which condition failed. Identical scores on
every task (with enough tasks and replicates) read `no difference`. docs/experiments.md states
these numbers and the power estimate.

A run with adaptive replicates (`--repeats auto`) chose how many replicates to run by looking at
the data, which a fixed-sample test does not allow for; its evidence carries the anytime-valid
e-values of `experiments/sequential.py`, and `better`/`worse` then also needs the e-value of that
direction to reach its bar (the test, the interval and the sequential test must all agree).

The power estimate: with d the observed mean difference, σ²_r the pooled variance of replicate
scores within a (task, arm), r the replicates per arm and s² the variance of the per-task
differences, the part of s² that replicates cannot remove is σ²_t = max(0, s² − 2σ²_r / r).
A paired test over n tasks reaches power 0.8 at level α when n·d² / s'² ≥ (z₁₋α/₂ + z₀.₈)², so
the replicates needed are r' = 2σ²_r / (n·d² / (z₁₋α/₂ + z₀.₈)² − σ²_t) when that is positive;
when it is not, more replicates alone will not do and the estimate says so (more tasks are
needed). The estimate takes the observed difference at face value, so it is a guide, not a promise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

MIN_TASKS = 5
"""Fewest tasks measured in both arms for a decided verdict."""
MIN_REPLICATES = 2
"""Fewest replicates per task and arm for a decided verdict."""
TARGET_POWER = 0.8
MAX_REPLICATES_SHOWN = 1000
"""An estimate above this is reported as 'more than 1000'."""

Outcome = Literal["better", "worse", "no difference", "inconclusive"]


@dataclass(frozen=True)
class SequentialEvidence:
    """The run-level e-values of an adaptive run (experiments/sequential.py) and the bar each must reach."""

    e_better: float
    e_worse: float
    bar: float

    def confirms(self, outcome: Outcome) -> bool:
        return (self.e_better if outcome == "better" else self.e_worse) >= self.bar


@dataclass(frozen=True)
class Evidence:
    """What the verdict reads: the counts, the test and the interval of one two-arm comparison."""

    label_a: str
    label_b: str
    tasks: int
    min_replicates: int
    mean_difference: float | None
    low: float | None
    high: float | None
    t_pvalue: float | None
    ties: int
    confidence: float
    b_better: int = 0
    a_better: int = 0
    sequential: SequentialEvidence | None = None
    """Set for a run with adaptive replicates: the decision then also needs the sequential test."""


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    """`better`/`worse`: B against A. `inconclusive` names its reason in `why`."""
    why: str
    more_replicates: str | None = None
    """How many replicates per arm would likely decide it (or why more replicates would not)."""


def decide(e: Evidence) -> Verdict:
    """The verdict for one comparison: decided only when the test and the interval agree."""
    alpha = 1 - e.confidence
    if e.tasks < MIN_TASKS or e.min_replicates < MIN_REPLICATES:
        return Verdict(
            "inconclusive",
            f"{e.tasks} task(s) × {e.min_replicates} replicate(s) measured in both arms, below the minimum of "
            f"{MIN_TASKS} tasks × {MIN_REPLICATES} replicates",
        )
    if e.ties == e.tasks:
        return Verdict("no difference", f"identical mean scores on all {e.tasks} tasks")
    if e.mean_difference is None or e.low is None or e.high is None:
        return Verdict("inconclusive", "no interval could be computed")
    excludes = e.low > 0 or e.high < 0
    # The same non-zero difference on every task has no spread: the t statistic is unbounded (p → 0)
    # and SciPy returns no p, but it is the most consistent evidence there is.
    constant = e.t_pvalue is None and e.low == e.high == e.mean_difference != 0
    significant = constant or (e.t_pvalue is not None and e.t_pvalue < alpha)
    if excludes and significant:
        outcome: Outcome = "better" if e.mean_difference > 0 else "worse"
        if e.sequential is not None and not e.sequential.confirms(outcome):
            value = e.sequential.e_better if outcome == "better" else e.sequential.e_worse
            return Verdict(
                "inconclusive",
                f"the paired test and the interval agree, but the sequential test an adaptive run needs does not "
                f"confirm it yet (e-value {value:.3g}, needs {e.sequential.bar:g})",
            )
        why = "the paired test, the interval and the sequential test agree" if e.sequential else ""
        return Verdict(outcome, why or "the paired test and the interval agree")
    if excludes:
        return Verdict("inconclusive", f"the interval excludes zero but the paired t-test does not reach p < {alpha:g}")
    if significant:
        return Verdict("inconclusive", f"the paired t-test reaches p < {alpha:g} but the interval includes zero")
    return Verdict("inconclusive", "neither the paired test nor the interval separates the arms")


def replicate_variance(scores: Sequence[Mapping[str, Sequence[float]]], tasks: Sequence[str]) -> float | None:
    """Pooled within-(task, arm) variance of replicate scores; None without any repeated cell."""
    total, dof = 0.0, 0
    for arm in scores:
        for task in tasks:
            values = list(arm.get(task, ()))
            if len(values) > 1:
                mean = sum(values) / len(values)
                total += sum((v - mean) ** 2 for v in values)
                dof += len(values) - 1
    return total / dof if dof else None


def replicates_needed(
    e: Evidence, differences: Sequence[float], within: float | None, *, power: float = TARGET_POWER
) -> str | None:
    """A sentence on how many replicates per arm would likely decide an inconclusive comparison."""
    if e.tasks < MIN_TASKS:
        return f"measure at least {MIN_TASKS} tasks in both arms (more replicates cannot stand in for tasks)"
    if e.mean_difference is None:
        return None
    d = abs(e.mean_difference)
    if d == 0:
        return "the observed mean difference is 0: no number of replicates is likely to decide it"
    n = e.tasks
    mean = sum(differences) / n
    s2 = sum((x - mean) ** 2 for x in differences) / (n - 1)
    z = NormalDist().inv_cdf(1 - (1 - e.confidence) / 2) + NormalDist().inv_cdf(power)
    reps = max(1, e.min_replicates)
    if within is None:
        return "with one replicate per arm the run-to-run noise is unknown: run at least 2 (--repeats 2)"
    sigma_r = within
    sigma_t = max(0.0, s2 - 2 * sigma_r / reps)
    room = n * d * d / (z * z) - sigma_t
    if room <= 0:
        tasks = max(MIN_TASKS, math.ceil((z * z) * (sigma_t + 2 * sigma_r / reps) / (d * d)))
        return (
            "more replicates alone are unlikely to decide it: the tasks disagree among themselves; "
            f"about {tasks} tasks at this difference would"
        )
    if sigma_r == 0:
        tasks = max(MIN_TASKS, math.ceil(z * z * s2 / (d * d)))
        return f"replicates do not vary, so more of them will not help; about {tasks} tasks would"
    needed = max(MIN_REPLICATES, math.ceil(2 * sigma_r / room))
    if needed > MAX_REPLICATES_SHOWN:
        return f"more than {MAX_REPLICATES_SHOWN} replicates per arm (power {power:.0%} at this difference)"
    return f"about {needed} replicates per arm would likely decide it (power {power:.0%} at this difference)"


def sentence(e: Evidence, verdict: Verdict) -> str:
    """The verdict as a sentence with N, the test's p and the interval side by side."""
    a, b = e.label_a, e.label_b
    level = f"{e.confidence * 100:.0f}%"
    numbers = f"N = {e.tasks} tasks × {e.min_replicates}+ replicates"
    if e.mean_difference is not None and e.low is not None and e.high is not None:
        numbers += f", mean {_signed(e.mean_difference)}, {level} CI [{_signed(e.low)}, {_signed(e.high)}]"
    numbers += ", paired t-test p = " + ("n/a" if e.t_pvalue is None else f"{e.t_pvalue:.3g}")
    if e.sequential is not None:
        worse = verdict.outcome == "worse" or (e.mean_difference is not None and e.mean_difference < 0)
        value = e.sequential.e_worse if worse else e.sequential.e_better
        numbers += f", sequential e-value {value:.3g} (bar {e.sequential.bar:g})"
    if verdict.outcome == "better":
        head = f"{b} better than {a} on {e.b_better} of {e.tasks} tasks"
    elif verdict.outcome == "worse":
        head = f"{a} better than {b} on {e.a_better} of {e.tasks} tasks"
    elif verdict.outcome == "no difference":
        head = f"No difference between {a} and {b}: {verdict.why}"
    else:
        head = f"Inconclusive ({b} vs {a}): {verdict.why}"
    text = f"{head} ({numbers})"
    if verdict.more_replicates:
        text += f"; {verdict.more_replicates}"
    return text


def _signed(value: float) -> str:
    if abs(value) < 0.005:
        value = 0.0
    return f"{value:+.2f}".replace("-", "−")
