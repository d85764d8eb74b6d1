"""Across runs: each task's pass rate, duration, cost and turns, oldest run first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coder_eval.board.runs import RunView

DEFAULT_TREND_RUNS = 20


def _avg(values: Sequence[float | int | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _point(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One task in one run: its replicates folded into a rate and three means."""
    graded = [r for r in rows if r["category"] != "ungraded"]
    passed = sum(r["category"] == "succeeded" for r in graded)
    return {
        "replicates": len(rows),
        "passed": passed,
        "graded": len(graded),
        "pass_rate": passed / len(graded) if graded else None,
        "duration": _avg([r["duration"] for r in rows]),
        "cost": _avg([r["cost"] for r in rows]),
        "turns": _avg([r["turns"] for r in rows]),
        "statuses": sorted({r["status"] for r in rows}),
    }


def trends_payload(views: list[RunView]) -> dict[str, Any]:
    """`views` oldest first. Tasks come worst pass rate first, so the ones to look at lead."""
    by_task: dict[tuple[str, str], dict[int, list[dict[str, Any]]]] = {}
    for index, view in enumerate(views):
        for row in view.rows:
            by_task.setdefault((row["variant_id"], row["task_id"]), {}).setdefault(index, []).append(row)
    tasks = []
    for (variant_id, task_id), per_run in by_task.items():
        points = [_point(per_run[i]) if i in per_run else None for i in range(len(views))]
        seen = [p for p in points if p is not None]
        graded = sum(p["graded"] for p in seen)
        passed = sum(p["passed"] for p in seen)
        rates = {p["pass_rate"] for p in seen if p["pass_rate"] is not None}
        tasks.append(
            {
                "task_id": task_id,
                "variant_id": variant_id,
                "points": points,
                "runs_seen": len(seen),
                "pass_rate": passed / graded if graded else None,
                "duration": _avg([p["duration"] for p in seen]),
                "cost": _avg([p["cost"] for p in seen]),
                "turns": _avg([p["turns"] for p in seen]),
                "flaky": len(rates) > 1,
            }
        )
    tasks.sort(key=lambda t: (t["pass_rate"] if t["pass_rate"] is not None else 2.0, t["variant_id"], t["task_id"]))
    runs = [
        {
            "run_id": v.run_id,
            "start_time": v.summary.start_time.isoformat(),
            "pass_rate": v.summary.pass_rate,
            "cost": v.summary.total_cost_usd,
            "duration": v.summary.total_duration_seconds,
            "tasks_run": v.summary.tasks_run,
        }
        for v in views
    ]
    return {"runs": runs, "tasks": tasks}
