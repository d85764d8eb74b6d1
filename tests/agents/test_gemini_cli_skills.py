"""Gemini CLI finds a plugin's skill in its private home and activates it with its own tool."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_agents import require_binary
from test_claude_code_e2e import explain, make_plugin
from test_cli_agents_e2e import agent_task, run_task

pytestmark = pytest.mark.slow


def test_plugin_skill_is_activated(tmp_path: Path) -> None:
    require_binary("gemini-cli")
    plugin = make_plugin(tmp_path / "plugin")
    doc = agent_task(
        "gemini-cli",
        "skill",
        "Greet me, using your greet skill.",
        [
            {"type": "skill_triggered", "skill_name": "greet", "expected_skill": "greet", "description": "greet"},
            {"type": "file_exists", "path": "greeting.txt", "description": "greeted"},
        ],
        plugins=[{"type": "local", "path": str(plugin)}],
    )
    script = {
        "steps": [
            {"invoke_skill": {"name": "greet"}},
            {"write_file": {"path": "greeting.txt", "content": "hello from the greet skill\n"}},
            {"reply": "greeted"},
        ]
    }
    record, proc = run_task(tmp_path / "task", doc, script)
    assert record["final_status"] == "SUCCESS", explain(record, proc)
    activation, _write = record["iterations"][0]["commands"]
    assert (activation["tool_name"], activation["tool_kind"], activation["status"]) == (
        "activate_skill",
        "skill",
        "success",
    )
    assert activation["parameters"] == {"name": "greet"}
    assert "greet" in activation["result_summary"] and "activated" in activation["result_summary"]
