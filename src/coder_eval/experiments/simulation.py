"""Adaptive replicates against the fixed design, on simulated arms whose success rates are known.

Each simulated experiment draws every replicate a fixed design would run (`max_repeats` per task
and arm, pass = score 1, fail = score 0) once; the fixed design's verdict reads all of them and
the adaptive procedure (`stopping.review` after each round) reads them in replicate order, so the
two designs are compared on the same outcomes. `bench/adaptive.py` prints the figures and the
tests in tests/experiments check them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from coder_eval.experiments.stats import paired_comparison
from coder_eval.experiments.stopping import AdaptiveSettings, StopRule, TaskReplicates, review


@dataclass(frozen=True)
class Scenario:
    """Two arms' success probability on each task (the same length: one entry per task)."""

    name: str
    p_a: tuple[float, ...]
    p_b: tuple[float, ...]

    @property
    def truth(self) -> str:
        """`better` when B's mean success rate is higher, `worse` when lower, else `none`."""
        gap = float(np.mean(self.p_b) - np.mean(self.p_a))
        return "better" if gap > 1e-9 else "worse" if gap < -1e-9 else "none"


@dataclass(frozen=True)
class Trial:
    """One simulated experiment: both designs' outcomes and what the adaptive one spent."""

    fixed: str
    adaptive: str
    units: int
    fixed_units: int
    rules: tuple[StopRule, ...]


def decision_class(outcome: str) -> str:
    """better / worse / undecided (`inconclusive` and `no difference` decide nothing)."""
    return outcome if outcome in ("better", "worse") else "undecided"


def run_trial(
    scenario: Scenario, settings: AdaptiveSettings, rng: np.random.Generator, *, fixed_repeats: int | None = None
) -> Trial:
    """One experiment under both designs. The fixed design runs `fixed_repeats` replicates (the
    adaptive cap unless given) and reads the first ones of the same draws."""
    tasks = len(scenario.p_a)
    fixed_n = fixed_repeats or settings.max_repeats
    shape = (tasks, max(settings.max_repeats, fixed_n))
    a = (rng.random(shape) < np.asarray(scenario.p_a)[:, None]).astype(float)
    b = (rng.random(shape) < np.asarray(scenario.p_b)[:, None]).astype(float)
    ids = [f"t{i:03d}" for i in range(tasks)]
    fixed = paired_comparison(
        {t: list(a[i, :fixed_n]) for i, t in enumerate(ids)},
        {t: list(b[i, :fixed_n]) for i, t in enumerate(ids)},
        confidence=settings.confidence,
        side_tests=False,
    ).decision.outcome
    reps = dict.fromkeys(ids, settings.min_repeats)
    active = set(ids)
    rules: list[StopRule] = []
    outcome = "inconclusive"
    while active:
        replicates = [
            TaskReplicates(t, {r: float(a[i, r]) for r in range(reps[t])}, {r: float(b[i, r]) for r in range(reps[t])})
            for i, t in enumerate(ids)
        ]
        looked = review(replicates, active, settings)
        outcome = looked.decision.outcome
        for task_id, stop in looked.stops.items():
            active.discard(task_id)
            rules.append(stop.rule)
        for task_id in active:
            reps[task_id] += 1
    return Trial(
        fixed=decision_class(fixed),
        adaptive=decision_class(outcome),
        units=2 * sum(reps.values()),
        fixed_units=2 * tasks * fixed_n,
        rules=tuple(rules),
    )


@dataclass
class Tally:
    """What many trials of one scenario add up to."""

    scenario: Scenario
    trials: int = 0
    units: int = 0
    fixed_units: int = 0
    agree: int = 0
    adaptive_errors: int = 0
    fixed_errors: int = 0
    adaptive_decided: int = 0
    fixed_decided: int = 0
    rules: Counter[str] = field(default_factory=Counter)

    def add(self, trial: Trial) -> None:
        self.trials += 1
        self.units += trial.units
        self.fixed_units += trial.fixed_units
        self.agree += trial.adaptive == trial.fixed
        self.adaptive_errors += _is_error(trial.adaptive, self.scenario.truth)
        self.fixed_errors += _is_error(trial.fixed, self.scenario.truth)
        self.adaptive_decided += trial.adaptive != "undecided"
        self.fixed_decided += trial.fixed != "undecided"
        self.rules.update(trial.rules)

    @property
    def saving(self) -> float:
        return 1 - self.units / self.fixed_units if self.fixed_units else 0.0


def _is_error(outcome: str, truth: str) -> bool:
    """A decided verdict that contradicts the truth (any decision when the arms are the same)."""
    if outcome == "undecided":
        return False
    return truth == "none" or outcome != truth


def simulate(
    scenario: Scenario, settings: AdaptiveSettings, trials: int, *, seed: int = 7, fixed_repeats: int | None = None
) -> Tally:
    rng = np.random.default_rng(seed)
    tally = Tally(scenario)
    for _ in range(trials):
        tally.add(run_trial(scenario, settings, rng, fixed_repeats=fixed_repeats))
    return tally


def standard_scenarios(tasks: int = 10, *, seed: int = 11) -> list[Scenario]:
    """The scenarios bench/adaptive.py prints: no difference, clear and moderate effects, mixed."""
    rng = np.random.default_rng(seed)
    base = tuple(float(p) for p in rng.uniform(0.15, 0.85, tasks))
    easy = tuple(1.0 if i % 2 else 0.0 for i in range(tasks))

    def shifted(by: float) -> tuple[float, ...]:
        return tuple(min(1.0, max(0.0, p + by)) for p in base)

    mixed = tuple(min(1.0, p + 0.5) if i < tasks // 3 else p for i, p in enumerate(base))
    return [
        Scenario("no difference", base, base),
        Scenario("no difference, deterministic tasks", easy, easy),
        Scenario("B better by 0.2 on reliable tasks", (0.8,) * tasks, (1.0,) * tasks),
        Scenario("B better by 0.4", base, shifted(0.4)),
        Scenario("B better by 0.2", base, shifted(0.2)),
        Scenario("B worse by 0.3", base, shifted(-0.3)),
        Scenario("B better on a third of the tasks", base, mixed),
    ]


def describe(scenarios: Sequence[Scenario]) -> list[str]:
    return [f"{s.name}: mean p_A {np.mean(s.p_a):.2f}, p_B {np.mean(s.p_b):.2f}" for s in scenarios]
