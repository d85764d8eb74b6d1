"""Payload of the flaky page: unstable tasks over the recent runs, with their evidence and grader defects.

The compact rows of each run say which configurations (task, variant, agent, model) flip; only
the units of those are read in full (their task.json, once per version through the reader's
cache) for the criteria that flip. Grader defects come from the runs' regrades.json, written by
`coder-eval flaky --regrade N`. The figures are the ones `coder-eval flaky` prints
(experiments/flaky.py and experiments/grader_defects.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from coder_eval.board.runs import RunView
from coder_eval.experiments.flaky import ConfigKey, TaskStability, Unit, task_stability
from coder_eval.experiments.grader_defects import UnitGraderCheck, defective_configs, grader_checks
from coder_eval.models.regrades import RunRegrades, UnitRegrades
from coder_eval.models.results import EvaluationResult

RecordOf = Callable[[RunView, str], EvaluationResult | None]
RegradesOf = Callable[[RunView], RunRegrades | None]


def _key(row: dict[str, Any]) -> tuple[str, str, str, str]:
    return (row["task_id"], row["variant_id"], row.get("agent") or "?", row.get("model") or "?")


def _flipping(views: list[RunView]) -> tuple[dict[tuple[str, str, str, str], list[tuple[RunView, str]]], int]:
    """Configurations whose graded rows both succeeded and did not, with their units; and how many there are in all."""
    groups: dict[tuple[str, str, str, str], list[tuple[RunView, dict[str, Any]]]] = {}
    for view in views:
        for row in view.rows:
            groups.setdefault(_key(row), []).append((view, row))
    flipping = {}
    for key, members in groups.items():
        graded = [row for _, row in members if row["category"] != "ungraded"]
        passed = sum(row["category"] == "succeeded" for row in graded)
        if 0 < passed < len(graded):
            flipping[key] = [(view, row["path"]) for view, row in members]
    return flipping, len(groups)


def _task(t: TaskStability, defect: bool) -> dict[str, Any]:
    data = asdict(t)
    return {
        **data,
        "task_id": t.task_id,
        "variant_id": t.variant_id,
        "label": t.key.label,
        "stability": t.stability,
        "within_runs": t.within_runs.share,
        "across_runs": t.across_runs.share,
        "flaky": t.flaky,
        "grader_defect": defect,
    }


def _check(c: UnitGraderCheck) -> dict[str, Any]:
    return {
        **asdict(c),
        "label": c.key.label,
        "defect": c.defect,
        "flips": [{**asdict(f), "passed": f.passed, "low": f.low, "high": f.high} for f in c.flips],
    }


def _regraded(views: list[RunView], record_of: RecordOf, regrades_of: RegradesOf) -> list[tuple[Unit, UnitRegrades]]:
    out = []
    for view in views:
        store = regrades_of(view)
        for rel, stored in store.units.items() if store else []:
            record = record_of(view, rel)
            if record is not None:
                out.append((Unit(view.run_id, record, rel), stored))
    return out


def flaky_payload(views: list[RunView], record_of: RecordOf, regrades_of: RegradesOf) -> dict[str, Any]:
    """`views` oldest first: the flaky configurations least stable first, then re-graded units with a defect."""
    flipping, configurations = _flipping(views)
    units, unreadable = [], 0
    for members in flipping.values():
        for view, rel in members:
            record = record_of(view, rel)
            if record is None:
                unreadable += 1
            else:
                units.append(Unit(view.run_id, record, rel))
    checks = grader_checks(_regraded(views, record_of, regrades_of))
    defects = defective_configs(checks)
    tasks = [_task(t, t.key in defects) for t in task_stability(units) if t.flaky]
    flaky_keys = {ConfigKey(*key) for key in flipping}
    return {
        "runs": [v.run_id for v in views],
        "configurations": configurations,
        "tasks": tasks,
        "unreadable_units": unreadable,
        "grader_checks": [_check(c) for c in checks],
        "grader_defects": sorted(k.label for k in defects),
        "regraded_units": len(checks),
        "defects_not_flaky": sorted(k.label for k in defects - flaky_keys),
    }
