"""Two runs side by side: what regressed, what got fixed, and how cost and time moved.

Replicates are matched on (variant, task, replicate index). A regression is a replicate that
succeeded in the base run and does not in the head run; a fix is the reverse.
"""

from __future__ import annotations

from typing import Any

from coder_eval.board.runs import RunView
from coder_eval.models.run import sum_costs

Key = tuple[str, str, int]
_ORDER = {"regressed": 0, "fixed": 1, "removed": 2, "added": 3, "still_failing": 4, "still_passing": 5}


def change_kind(base: dict[str, Any] | None, head: dict[str, Any] | None) -> str:
    if base is None:
        return "added"
    if head is None:
        return "removed"
    was, now = base["category"] == "succeeded", head["category"] == "succeeded"
    if was and not now:
        return "regressed"
    if now and not was:
        return "fixed"
    return "still_passing" if now else "still_failing"


def _delta(a: float | int | None, b: float | int | None) -> float | None:
    return None if a is None or b is None else float(b) - float(a)


def _field_delta(a: dict[str, Any] | None, b: dict[str, Any] | None, name: str) -> float | None:
    return None if a is None or b is None else _delta(a[name], b[name])


def _totals(view: RunView) -> dict[str, Any]:
    s = view.summary
    return {
        "run_id": view.run_id,
        "start_time": s.start_time.isoformat(),
        "pass_rate": s.pass_rate,
        "tasks_run": s.tasks_run,
        "succeeded": s.tasks_succeeded,
        "cost": s.total_cost_usd,
        "duration": s.total_duration_seconds,
        "task_time": sum(float(r["duration"] or 0.0) for r in view.rows),
        "tokens": sum(int(r["tokens"] or 0) for r in view.rows),
    }


def compare_payload(base: RunView, head: RunView) -> dict[str, Any]:
    def index(view: RunView) -> dict[Key, dict[str, Any]]:
        return {(r["variant_id"], r["task_id"], r["replicate_index"]): r for r in view.rows}

    a, b = index(base), index(head)
    changes: list[dict[str, Any]] = []
    for key in sorted(a.keys() | b.keys()):
        ra, rb = a.get(key), b.get(key)
        changes.append(
            {
                "variant_id": key[0],
                "task_id": key[1],
                "replicate_index": key[2],
                "kind": change_kind(ra, rb),
                "base": None if ra is None else {k: ra[k] for k in ("status", "score", "duration", "cost", "path")},
                "head": None if rb is None else {k: rb[k] for k in ("status", "score", "duration", "cost", "path")},
                "score_delta": _field_delta(ra, rb, "score"),
                "duration_delta": _field_delta(ra, rb, "duration"),
                "cost_delta": _field_delta(ra, rb, "cost"),
            }
        )
    changes.sort(key=lambda c: (_ORDER[c["kind"]], c["variant_id"], c["task_id"], c["replicate_index"]))
    counts = {kind: sum(c["kind"] == kind for c in changes) for kind in _ORDER}
    tb, th = _totals(base), _totals(head)
    return {
        "base": tb,
        "head": th,
        "counts": counts,
        "deltas": {
            "pass_rate": _delta(tb["pass_rate"], th["pass_rate"]),
            "cost": _delta(tb["cost"], th["cost"]),
            "duration": _delta(tb["duration"], th["duration"]),
            "task_time": _delta(tb["task_time"], th["task_time"]),
            "tokens": _delta(tb["tokens"], th["tokens"]),
            "matched_cost": _matched_cost(changes),
        },
        "changes": changes,
    }


def _matched_cost(changes: list[dict[str, Any]]) -> float | None:
    """Cost change over replicates present in both runs (added and removed rows would skew it)."""
    return sum_costs([c["cost_delta"] for c in changes if c["base"] and c["head"]])
