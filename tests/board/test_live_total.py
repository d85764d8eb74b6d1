"""A run still going shows its planned total: run-plan.json, written at the start, feeds the run page."""

from __future__ import annotations

import json
from pathlib import Path

from coder_eval.board.catalog import RunEntry
from coder_eval.board.run_pages import run_payload
from coder_eval.board.runs import RunReader
from coder_eval.records.layout import RUN_PLAN, SCRATCH_DIR


def test_a_running_run_reports_its_planned_units(tmp_path: Path) -> None:
    run = tmp_path / "r1"
    (run / SCRATCH_DIR / "sbx-1").mkdir(parents=True)  # live workspaces: the run is under way
    (run / RUN_PLAN).write_text(json.dumps({"units_planned": 12, "units_to_run": 12}), encoding="utf-8")
    view = RunReader().view(RunEntry("r1", run))
    assert view.state == "running"
    payload = run_payload(view)
    assert payload["units_planned"] == 12 and payload["tasks_run"] == 0


def test_an_unreadable_plan_file_is_no_total(tmp_path: Path) -> None:
    run = tmp_path / "r2"
    (run / SCRATCH_DIR / "sbx-1").mkdir(parents=True)
    (run / RUN_PLAN).write_text("{not json", encoding="utf-8")
    assert run_payload(RunReader().view(RunEntry("r2", run)))["units_planned"] is None
