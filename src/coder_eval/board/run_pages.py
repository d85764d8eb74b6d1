"""Payloads of the runs index and the run page."""

from __future__ import annotations

from typing import Any

from coder_eval.board.runs import RunView
from coder_eval.models.run import sum_costs

FIRST_PAGE_ROWS = 100
"""Rows sent with the run page itself; the rest load in the background for filtering."""


def outcome(view: RunView) -> str:
    """One word for the index filter: running, interrupted, passed, failed or empty."""
    s = view.summary
    if view.state == "running":
        return "running"
    if view.interrupted:
        return "interrupted"
    if s.tasks_run == 0:
        return "empty"
    return "passed" if s.tasks_failed + s.tasks_error == 0 else "failed"


def _distinct(rows: list[dict[str, Any]], key: str) -> list[str]:
    values: set[str] = set()
    for row in rows:
        value = row.get(key)
        if isinstance(value, list):
            values.update(str(v) for v in value)
        elif value is not None:
            values.add(str(value))
    return sorted(values)


def digest(view: RunView) -> dict[str, Any]:
    """One line of the runs index."""
    s = view.summary
    return {
        "run_id": view.run_id,
        "state": view.state,
        "interrupted": view.interrupted,
        "outcome": outcome(view),
        "start_time": s.start_time.isoformat(),
        "end_time": s.end_time.isoformat(),
        "duration": s.total_duration_seconds,
        "tasks_run": s.tasks_run,
        "succeeded": s.tasks_succeeded,
        "failed": s.tasks_failed,
        "errors": s.tasks_error,
        "not_graded": s.tasks_not_graded,
        "pass_rate": s.pass_rate,
        "cost": s.total_cost_usd,
        "agents": _distinct(view.rows, "agent"),
        "models": _distinct(view.rows, "model"),
        "tags": _distinct(view.rows, "tags"),
        "variants": _distinct(view.rows, "variant_id"),
    }


def run_payload(view: RunView) -> dict[str, Any]:
    """The run page: headline numbers, the cost split, facets for the filters, and the first rows."""
    s = view.summary
    rows = view.rows
    return {
        **digest(view),
        "error_share": s.error_share,
        "units_planned": s.units_planned,
        "costs": {
            "total": s.total_cost_usd,
            "agent": s.agent_cost_usd,
            "judge": sum_costs([r["judge_cost"] for r in rows]),
            "simulator": sum_costs([r["simulator_cost"] for r in rows]),
            "complete": s.cost_complete,
            "incomplete_rows": s.tasks_cost_incomplete,
        },
        "tokens": sum(int(r["tokens"] or 0) for r in rows),
        "token_budget_exceeded": s.tasks_token_budget_exceeded,
        "cost_budget_exceeded": s.tasks_cost_budget_exceeded,
        "skipped": [t.model_dump() for t in s.skipped_tasks],
        "framework_version": s.framework_version,
        "max_parallel": s.max_parallel,
        "facets": {
            "status": _distinct(rows, "status"),
            "variant": _distinct(rows, "variant_id"),
            "tag": _distinct(rows, "tags"),
            "agent": _distinct(rows, "agent"),
            "model": _distinct(rows, "model"),
        },
        "warnings": view.warnings,
        # experiment.json is written for every run; its page is worth a link with two arms or replicates.
        "has_arms": len({r["variant_id"] for r in rows}) > 1 or any(r["replicate_index"] > 0 for r in rows),
        "row_count": len(rows),
        "rows": rows[:FIRST_PAGE_ROWS],
    }


def rows_page(view: RunView, offset: int, limit: int | None) -> dict[str, Any]:
    offset = max(0, offset)
    end = len(view.rows) if limit is None else offset + max(0, limit)
    return {"run_id": view.run_id, "total": len(view.rows), "offset": offset, "rows": view.rows[offset:end]}
