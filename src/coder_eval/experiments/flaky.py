"""Flaky tasks: a task (under one variant) whose outcome flips across its replicates and runs.

For each (task, variant) the units of every given run are pooled. A task is *flaky* when some
graded units succeeded and others did not. Its **stability** is the share of graded units that
agree with the majority outcome: 1.0 for a task that always passes or always fails, 0.5 for
one that passes half the time. The evidence is which criteria flip (passed in some units,
failed in others, with the range of scores they got) and, when no criterion flips, the
statuses that differ (an error in one replicate, say).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from coder_eval.experiments.passk import STRIP_MARKS
from coder_eval.models.results import EvaluationResult, criterion_title


@dataclass(frozen=True)
class CriterionFlip:
    """One criterion that passed in some units and failed in others."""

    title: str
    passed: int
    evaluated: int
    low: float
    high: float

    def describe(self) -> str:
        return f"{self.title}: passed {self.passed} of {self.evaluated} (scores {self.low:.3f}–{self.high:.3f})"


@dataclass(frozen=True)
class TaskStability:
    task_id: str
    variant_id: str
    strips: tuple[tuple[str, str], ...]
    """(run label, replicate strip) per run that has the task."""
    graded: int
    succeeded: int
    statuses: tuple[tuple[str, int], ...]
    flips: tuple[CriterionFlip, ...]

    @property
    def flaky(self) -> bool:
        return 0 < self.succeeded < self.graded

    @property
    def stability(self) -> float | None:
        """Share of graded units agreeing with the majority outcome; None when nothing was graded."""
        if not self.graded:
            return None
        return max(self.succeeded, self.graded - self.succeeded) / self.graded


def task_stability(runs: Sequence[tuple[str, Sequence[EvaluationResult]]]) -> list[TaskStability]:
    """Every (task, variant) seen in `runs` ((label, units) pairs), least stable first, then by id."""
    groups: dict[tuple[str, str], list[tuple[str, EvaluationResult]]] = {}
    for label, results in runs:
        for r in results:
            groups.setdefault((r.task_id, r.variant_id), []).append((label, r))
    out = [_stability(task, variant, units) for (task, variant), units in groups.items()]
    return sorted(out, key=lambda s: (s.stability if s.stability is not None else 2.0, s.task_id, s.variant_id))


def _stability(task_id: str, variant_id: str, units: list[tuple[str, EvaluationResult]]) -> TaskStability:
    strips: dict[str, list[tuple[int, str]]] = {}
    statuses: dict[str, int] = {}
    for label, r in units:
        strips.setdefault(label, []).append((r.replicate_index, STRIP_MARKS[r.final_status.category]))
        statuses[r.final_status.value] = statuses.get(r.final_status.value, 0) + 1
    categories = [r.final_status.category for _, r in units]
    return TaskStability(
        task_id=task_id,
        variant_id=variant_id,
        strips=tuple((label, "".join(m for _, m in sorted(marks))) for label, marks in strips.items()),
        graded=sum(1 for c in categories if c != "ungraded"),
        succeeded=categories.count("succeeded"),
        statuses=tuple(sorted(statuses.items())),
        flips=_flips([r for _, r in units]),
    )


def _flips(units: Sequence[EvaluationResult]) -> tuple[CriterionFlip, ...]:
    """Criteria (by position and title) evaluated in several units whose pass/fail differs between them."""
    seen: dict[tuple[int, str], list[tuple[bool, float]]] = {}
    for r in units:
        for i, c in enumerate(r.success_criteria_results):
            if c.evaluation_status == "evaluated":
                seen.setdefault((i, criterion_title(c)), []).append((c.passed, c.score))
    flips = []
    for (_, title), values in sorted(seen.items()):
        passed = sum(1 for p, _ in values if p)
        if 0 < passed < len(values):
            scores = [s for _, s in values]
            flips.append(CriterionFlip(title, passed, len(values), min(scores), max(scores)))
    return tuple(flips)


def stability_lines(tasks: Sequence[TaskStability], *, show_all: bool = False) -> list[str]:
    """The listing `coder-eval flaky` prints: each flaky task with its strips and evidence, then a count."""
    lines: list[str] = []
    for t in tasks:
        if not (t.flaky or show_all):
            continue
        figure = "n/a" if t.stability is None else f"{t.stability:.2f}"
        lines.append(
            f"{t.task_id} ({t.variant_id}): stability {figure}, {t.succeeded} of {t.graded} graded unit(s) succeeded"
        )
        lines.append("  runs: " + " · ".join(f"{label} {strip}" for label, strip in t.strips))
        for flip in t.flips:
            lines.append(f"  flips: {flip.describe()}")
        if t.flaky and not t.flips:
            counts = ", ".join(f"{status} ×{n}" for status, n in t.statuses)
            lines.append(f"  no criterion flips; the statuses differ: {counts}")
    flaky = sum(1 for t in tasks if t.flaky)
    lines.append(f"{flaky} of {len(tasks)} task(s) flaky (outcome differs between replicates or runs)")
    return lines
