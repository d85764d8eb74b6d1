"""The listing `coder-eval flaky` prints: unstable tasks with their evidence, then grader defects.

Criterion details and reasons come from what the agent left behind, so every one of them goes
through the shared sanitiser (`clean_line`) before it reaches a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from coder_eval.common.untrusted_text import clean_line
from coder_eval.experiments.flaky import Agreement, FlipSide, TaskStability, UnitRef
from coder_eval.experiments.grader_defects import UnitGraderCheck, defective_configs

UNITS_SHOWN = 6
"""Units named per reason; the rest are counted."""


def _share(a: Agreement) -> str:
    share = a.share
    return "n/a" if share is None else f"{share:.2f}"


def _units(refs: Sequence[UnitRef]) -> str:
    shown = ", ".join(r.label for r in refs[:UNITS_SHOWN])
    more = len(refs) - UNITS_SHOWN
    return shown + (f" (+{more} more)" if more > 0 else "")


def _scores(low: float, high: float) -> str:
    return f"score {low:.3f}" if abs(high - low) < 1e-9 else f"scores {low:.3f}–{high:.3f}"


def _side_lines(side: FlipSide) -> list[str]:
    verb = "passed" if side.passed else "failed"
    lines = []
    for reason in side.reasons:
        said = clean_line(reason.text) or "(the checker said nothing)"
        lines.append(f"    {verb} in {_units(reason.units)} ({_scores(reason.low, reason.high)}): {said}")
    if side.more_reasons:
        lines.append(f"    … and {side.more_reasons} other reason(s) where it {verb}")
    return lines


def task_lines(t: TaskStability, *, grader_defect: bool = False) -> list[str]:
    """One task: its stability, strips and the evidence of each flip."""
    figure = "n/a" if t.stability is None else f"{t.stability:.2f}"
    lines = [
        f"{clean_line(t.key.label)}: stability {figure} (within runs {_share(t.within_runs)}, "
        f"across runs {_share(t.across_runs)}), {t.succeeded} of {t.graded} graded unit(s) succeeded",
        "  runs: " + " · ".join(f"{clean_line(label)} {strip}" for label, strip in t.strips),
    ]
    if grader_defect:
        lines.append(
            "  grader defect: its grade differs on the same workspace (see below), "
            "so these flips need not be the agent's"
        )
    if t.config_changes:
        lines.append(
            "  note: the recorded configuration differs between these units ("
            + ", ".join(t.config_changes)
            + "); runs of different configurations are not a fair comparison"
        )
    for flip in t.flips:
        lines.append(f"  flips: {clean_line(flip.describe())}")
        lines += _side_lines(flip.passing) + _side_lines(flip.failing)
    if t.flaky and not t.flips:
        counts = ", ".join(f"{status} ×{n}" for status, n in t.statuses)
        lines.append(f"  no criterion flips; the statuses differ: {counts}")
    return lines


def grader_lines(check: UnitGraderCheck) -> list[str]:
    """One re-graded unit with a defect: each criterion that differs, grade by grade."""
    lines = [
        f"{clean_line(check.key.label)} {clean_line(check.unit.label)}: the recorded grade and "
        f"{check.regrades} re-grade(s) of the same workspace disagree"
    ]
    for flip in check.flips:
        lines.append(f"  {clean_line(flip.describe())}")
        for o in flip.outcomes:
            said = clean_line(o.reason) or "(the checker said nothing)"
            lines.append(f"    {o.grade}: {'passed' if o.passed else 'failed'} ({o.score:.3f}): {said}")
    return lines


def stability_lines(
    tasks: Sequence[TaskStability], checks: Sequence[UnitGraderCheck] = (), *, show_all: bool = False
) -> list[str]:
    """The whole listing: flaky tasks (all tasks with `show_all`), grader defects, then the counts."""
    defects = defective_configs(checks)
    lines: list[str] = []
    for t in tasks:
        if t.flaky or show_all:
            lines += task_lines(t, grader_defect=t.key in defects)
    flaky = sum(1 for t in tasks if t.flaky)
    bad = [c for c in checks if c.defect]
    if checks:
        lines.append(
            f"grader check: {len(checks)} unit(s) re-graded, {len(bad)} whose grade differs on the same workspace"
        )
        for check in bad:
            lines += grader_lines(check)
        for check in checks:
            lines += [f"  {clean_line(check.unit.label)}: {clean_line(note)}" for note in check.notes]
    lines.append(f"{flaky} of {len(tasks)} task(s) flaky (outcome differs between replicates or runs)")
    if checks:
        lines.append(f"{len(defects)} task(s) with a grader defect (grade differs on the same workspace)")
    return lines
