"""Flaky tasks: a task whose outcome flips across replicates and across runs of one configuration.

Units are grouped by configuration: the same task, variant, agent and model. A group is
*flaky* when some of its graded units succeeded and others did not.

**Stability** is the share of pairs of graded units that agree (both succeeded, or both did
not). With c successes among n graded units that is (C(c,2) + C(n−c,2)) / C(n,2): 1.0 for a task
that always passes or always fails, and about 0.5 or less for a coin flip. It is also given
for pairs inside one run ("within runs", replicate noise) and for pairs from different runs
("across runs", which also catches a task that changed between runs).

The evidence is which criteria flip (passed in some units, failed in others), and on each side
with what: the scores and what the checker said, and in which units. When no criterion flips
but the statuses differ (an error in one replicate, say), the statuses are the evidence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb

from coder_eval.experiments.passk import STRIP_MARKS
from coder_eval.models.results import CriterionResult, EvaluationResult, criterion_title

REASON_CHARS = 160
"""What a checker said is kept to this many characters per reason."""
REASONS_PER_SIDE = 3
"""Distinct reasons listed per side of a flip; the rest are counted."""


@dataclass(frozen=True)
class UnitRef:
    """One unit as the evidence names it: its run, replicate and directory inside the run."""

    run: str
    replicate_index: int
    path: str
    status: str

    @property
    def label(self) -> str:
        return f"{self.run}#{self.replicate_index}"


@dataclass(frozen=True)
class ConfigKey:
    """What makes two units runs of the same configuration."""

    task_id: str
    variant_id: str
    agent: str
    model: str

    @property
    def label(self) -> str:
        return f"{self.task_id} ({self.variant_id} · {self.agent} · {self.model})"

    @classmethod
    def of(cls, r: EvaluationResult) -> ConfigKey:
        return cls(r.task_id, r.variant_id, r.agent_type or "?", r.model_used or "?")


@dataclass(frozen=True)
class Reason:
    """One thing a checker said, the units it said it in and the scores it gave there."""

    text: str
    units: tuple[UnitRef, ...]
    low: float
    high: float


@dataclass(frozen=True)
class FlipSide:
    """The units where a criterion passed (or failed), with their scores and reasons."""

    passed: bool
    units: tuple[UnitRef, ...]
    low: float
    high: float
    reasons: tuple[Reason, ...]
    more_reasons: int = 0


@dataclass(frozen=True)
class CriterionFlip:
    """One criterion that passed in some units and failed in others, with both sides."""

    title: str
    passed: int
    evaluated: int
    low: float
    high: float
    passing: FlipSide
    failing: FlipSide

    def describe(self) -> str:
        return f"{self.title}: passed {self.passed} of {self.evaluated} (scores {self.low:.3f}–{self.high:.3f})"


@dataclass(frozen=True)
class Agreement:
    """Pairs of graded units that agree, out of all such pairs."""

    agree: int
    pairs: int

    @property
    def share(self) -> float | None:
        return self.agree / self.pairs if self.pairs else None


@dataclass(frozen=True)
class TaskStability:
    key: ConfigKey
    strips: tuple[tuple[str, str], ...]
    """(run label, replicate strip) per run that has the task."""
    graded: int
    succeeded: int
    statuses: tuple[tuple[str, int], ...]
    flips: tuple[CriterionFlip, ...]
    overall: Agreement
    within_runs: Agreement
    across_runs: Agreement
    units: tuple[UnitRef, ...]
    config_changes: tuple[str, ...] = ()
    """Configuration fields whose recorded digest differs between the units (the comparison may be unfair)."""

    @property
    def task_id(self) -> str:
        return self.key.task_id

    @property
    def variant_id(self) -> str:
        return self.key.variant_id

    @property
    def flaky(self) -> bool:
        return 0 < self.succeeded < self.graded

    @property
    def stability(self) -> float | None:
        """Share of pairs of graded units that agree; 1.0 with one graded unit, None with none."""
        if self.graded == 1:
            return 1.0
        return self.overall.share


@dataclass(frozen=True)
class Unit:
    """A recorded unit: the run it belongs to (its label), its record and its directory inside the run."""

    run: str
    result: EvaluationResult
    path: str

    @property
    def ref(self) -> UnitRef:
        return UnitRef(self.run, self.result.replicate_index, self.path, self.result.final_status.value)


def task_stability(units: Iterable[Unit]) -> list[TaskStability]:
    """Every configuration seen among `units`, least stable first, then by name."""
    groups: dict[ConfigKey, list[Unit]] = {}
    for unit in units:
        groups.setdefault(ConfigKey.of(unit.result), []).append(unit)
    out = [_stability(key, members) for key, members in groups.items()]
    return sorted(out, key=_order)


def _order(s: TaskStability) -> tuple[float, str, str, str, str]:
    figure = s.stability if s.stability is not None else 2.0
    return (figure, s.key.task_id, s.key.variant_id, s.key.agent, s.key.model)


def _stability(key: ConfigKey, units: list[Unit]) -> TaskStability:
    strips: dict[str, list[tuple[int, str]]] = {}
    per_run: dict[str, list[bool]] = {}
    statuses: Counter[str] = Counter()
    for unit in units:
        label, r = unit.run, unit.result
        strips.setdefault(label, []).append((r.replicate_index, STRIP_MARKS[r.final_status.category]))
        statuses[r.final_status.value] += 1
        if r.final_status.category != "ungraded":
            per_run.setdefault(label, []).append(r.final_status.category == "succeeded")
    overall, within = _agreement(per_run)
    graded = sum(len(v) for v in per_run.values())
    return TaskStability(
        key=key,
        strips=tuple((label, "".join(m for _, m in sorted(marks))) for label, marks in strips.items()),
        graded=graded,
        succeeded=sum(sum(v) for v in per_run.values()),
        statuses=tuple(sorted(statuses.items())),
        flips=_flips(units),
        overall=overall,
        within_runs=within,
        across_runs=Agreement(overall.agree - within.agree, overall.pairs - within.pairs),
        units=tuple(u.ref for u in sorted(units, key=lambda u: (u.run, u.result.replicate_index))),
        config_changes=_config_changes([u.result for u in units]),
    )


def _agreeing(outcomes: Sequence[bool]) -> Agreement:
    c = sum(outcomes)
    return Agreement(comb(c, 2) + comb(len(outcomes) - c, 2), comb(len(outcomes), 2))


def _agreement(per_run: dict[str, list[bool]]) -> tuple[Agreement, Agreement]:
    """(all pairs, pairs inside one run); pairs across runs are the difference."""
    overall = _agreeing([o for outcomes in per_run.values() for o in outcomes])
    inside = [_agreeing(outcomes) for outcomes in per_run.values()]
    return overall, Agreement(sum(a.agree for a in inside), sum(a.pairs for a in inside))


def _config_changes(units: Sequence[EvaluationResult]) -> tuple[str, ...]:
    digests: dict[str, set[str]] = {}
    for r in units:
        for name, digest in (r.config_fingerprint or {}).items():
            digests.setdefault(name, set()).add(digest)
    return tuple(sorted(name for name, seen in digests.items() if len(seen) > 1))


def criterion_reason(c: CriterionResult) -> str:
    """The first line of what the checker said (its error, else its details), clipped."""
    text = (c.error or c.details or "").strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 1] + "…"


def _flips(units: Sequence[Unit]) -> tuple[CriterionFlip, ...]:
    """Criteria (by position and title) evaluated in several units whose pass/fail differs between them."""
    seen: dict[tuple[int, str], list[tuple[CriterionResult, UnitRef]]] = {}
    for unit in units:
        ref = unit.ref
        for i, c in enumerate(unit.result.success_criteria_results):
            if c.evaluation_status == "evaluated":
                seen.setdefault((i, criterion_title(c)), []).append((c, ref))
    flips = []
    for (_, title), values in sorted(seen.items()):
        passed = [v for v in values if v[0].passed]
        if 0 < len(passed) < len(values):
            failed = [v for v in values if not v[0].passed]
            scores = [c.score for c, _ in values]
            sides = _side(True, passed), _side(False, failed)
            flips.append(CriterionFlip(title, len(passed), len(values), min(scores), max(scores), *sides))
    return tuple(flips)


def _side(passed: bool, values: Sequence[tuple[CriterionResult, UnitRef]]) -> FlipSide:
    by_reason: dict[str, list[tuple[CriterionResult, UnitRef]]] = {}
    for c, ref in values:
        by_reason.setdefault(criterion_reason(c), []).append((c, ref))
    ranked = sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0]))
    reasons = tuple(
        Reason(text, tuple(ref for _, ref in group), min(c.score for c, _ in group), max(c.score for c, _ in group))
        for text, group in ranked[:REASONS_PER_SIDE]
    )
    scores = [c.score for c, _ in values]
    return FlipSide(
        passed,
        tuple(ref for _, ref in values),
        min(scores),
        max(scores),
        reasons,
        more_reasons=max(0, len(ranked) - REASONS_PER_SIDE),
    )
