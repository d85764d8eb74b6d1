"""Early stop end to end: Claude Code on the scripted model, cut at a tool-call boundary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from judge_e2e import claude_task, results, run, task_json

from coder_eval.agents.claude_code.options import bundled_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="no bundled Claude Code CLI"),
]

STEPS: list[dict[str, Any]] = [
    {"run_command": "echo curl-ish > probe.txt"},
    {"write_file": {"path": "app.py", "content": "print('Hello')\n"}},
    {"run_command": "python3 app.py"},
    {"run_command": "ls"},
    {"run_command": "ls -la"},
    {"run_command": "pwd"},
    {"reply": "done"},
]


def _criteria(stop: bool) -> list[dict[str, Any]]:
    ran: dict[str, Any] = {
        "type": "command_executed",
        "description": "ran the app",
        "tool_name": "Bash",
        "command_pattern": r"python3? app\.py",
        "require_success": True,
    }
    if stop:
        ran["stop_early"] = {"on_pass": "stop"}
    return [ran, {"type": "file_exists", "path": "app.py", "description": "app exists"}]


def test_pass_stop_makes_fewer_tool_calls(tmp_path: Path) -> None:
    full_dir, _ = run(tmp_path / "full", claude_task("es", _criteria(False)), {"steps": STEPS}, run_dir="r")
    full = task_json(full_dir, "es")
    stopped_dir, proc = run(tmp_path / "stop", claude_task("es", _criteria(True)), {"steps": STEPS}, run_dir="r")
    stopped = task_json(stopped_dir, "es")
    assert full["early_stop"] is None and full["actual_commands"] == 6
    assert stopped["actual_commands"] == 3 < full["actual_commands"], proc.stderr
    info = stopped["early_stop"]
    assert info["reason"] == "criterion_passed" and info["tool_call_index"] == 3
    assert info["deciding_criterion_description"] == "ran the app"
    assert info["armed_criteria"] == ["ran the app"] and info["gate_threshold"] == 1.0
    assert stopped["final_status"] == "SUCCESS"
    advisory = results(stopped)["app exists"]
    assert advisory["gating"] is False and advisory["details"].startswith("advisory")


def test_decision_budget_fail_stop(tmp_path: Path) -> None:
    crit = _criteria(False)
    crit[0]["stop_early"] = {"decide_within": 2}
    run_dir, _ = run(tmp_path, claude_task("budget", crit), {"steps": STEPS})
    record = task_json(run_dir, "budget")
    assert record["early_stop"]["reason"] == "decision_budget_exceeded"
    assert record["actual_commands"] == 2 and record["final_status"] == "FAILURE"


def test_kill_switch_disarms(tmp_path: Path) -> None:
    doc = claude_task("off", _criteria(True), run_limits={"stop_early": False})
    run_dir, _ = run(tmp_path, doc, {"steps": STEPS})
    record = task_json(run_dir, "off")
    assert record["early_stop"] is None and record["actual_commands"] == 6
