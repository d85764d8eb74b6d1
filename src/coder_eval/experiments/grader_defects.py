"""Grader defects: a unit whose grade differs when the same recorded workspace is graded again.

The agent plays no part in a re-grade (`coder-eval flaky --regrade N`): each one grades a fresh
copy of the unit's preserved workspace with its recorded task and trajectory. So when the
recorded grade and the re-grades disagree, on pass or fail or on a score, the grader is
nondeterministic (a command that reads the clock or /dev/urandom, a judge's sampling, a test
that depends on order), and the task's flakiness is not the agent's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from coder_eval.experiments.flaky import ConfigKey, Unit, UnitRef
from coder_eval.models.regrades import CriterionGrade, UnitRegrades

SCORE_TOLERANCE = 1e-9
"""Scores closer than this are the same score."""


@dataclass(frozen=True)
class GradeOutcome:
    """One grade of one criterion: which grade (`recorded`, `re-grade 2`), pass or fail, score, reason."""

    grade: str
    passed: bool
    score: float
    reason: str


@dataclass(frozen=True)
class GraderFlip:
    """A criterion whose outcome differs between grades of the same workspace."""

    title: str
    outcomes: tuple[GradeOutcome, ...]

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.outcomes)

    @property
    def low(self) -> float:
        return min(o.score for o in self.outcomes)

    @property
    def high(self) -> float:
        return max(o.score for o in self.outcomes)

    def describe(self) -> str:
        return (
            f"{self.title}: passed {self.passed} of {len(self.outcomes)} grade(s) "
            f"(scores {self.low:.3f}–{self.high:.3f})"
        )


@dataclass(frozen=True)
class UnitGraderCheck:
    """What the re-grades of one unit say about its grader."""

    key: ConfigKey
    unit: UnitRef
    regrades: int
    """Comparable re-grades (besides the recorded grade)."""
    flips: tuple[GraderFlip, ...]
    notes: tuple[str, ...] = ()
    """Re-grades that could not be compared, and why."""

    @property
    def defect(self) -> bool:
        return bool(self.flips)


def grader_checks(units: Sequence[tuple[Unit, UnitRegrades]]) -> list[UnitGraderCheck]:
    """One check per unit that has re-grades; units with a defect first."""
    checks = [_check(unit, regrades) for unit, regrades in units if regrades.regrades]
    return sorted(checks, key=lambda c: (not c.defect, c.key.label, c.unit.label))


def defective_configs(checks: Sequence[UnitGraderCheck]) -> set[ConfigKey]:
    return {c.key for c in checks if c.defect}


def _check(unit: Unit, stored: UnitRegrades) -> UnitGraderCheck:
    recorded = stored.recorded or [CriterionGrade.of(c) for c in unit.result.success_criteria_results]
    grades: list[tuple[str, list[CriterionGrade]]] = [("recorded", recorded)]
    notes = []
    for i, regrade in enumerate(stored.regrades, 1):
        if not regrade.comparable:
            notes.append(f"re-grade {i} not compared: {regrade.note or 'not comparable'}")
            continue
        if len(regrade.criteria) != len(recorded):
            counts = f"it has {len(regrade.criteria)} criteria, the record {len(recorded)}"
            notes.append(f"re-grade {i} not compared: {counts}")
            continue
        grades.append((f"re-grade {i}", regrade.criteria))
    return UnitGraderCheck(ConfigKey.of(unit.result), unit.ref, len(grades) - 1, _grader_flips(grades), tuple(notes))


def _grader_flips(grades: Sequence[tuple[str, Sequence[CriterionGrade]]]) -> tuple[GraderFlip, ...]:
    if len(grades) < 2:
        return ()
    flips = []
    for i, first in enumerate(grades[0][1]):
        outcomes = []
        for name, criteria in grades:
            c = criteria[i]
            if c.evaluated and c.title == first.title:
                outcomes.append(GradeOutcome(name, c.passed, c.score, c.reason))
        if len(outcomes) < 2:
            continue
        passes = {o.passed for o in outcomes}
        spread = max(o.score for o in outcomes) - min(o.score for o in outcomes)
        if len(passes) > 1 or spread > SCORE_TOLERANCE:
            flips.append(GraderFlip(first.title, tuple(outcomes)))
    return tuple(flips)
