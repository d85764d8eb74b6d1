"""run_limits.expected_turns (warning and report badge), the task_results row fields, task_config.source_yaml."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from leftover_cli import REPO, run_cli

from coder_eval.agents.claude_code.options import bundled_cli


@pytest.mark.slow
@pytest.mark.skipif(bundled_cli() is None, reason="no bundled Claude Code CLI")
def test_over_expected_turns_warns_badges_and_still_succeeds(tmp_path: Path) -> None:
    shutil.copytree(REPO / "tasks", tmp_path / "tasks")
    proc = run_cli(
        "run", "tasks/hello_date.yaml", "-b", "script", "-D", "run_limits.expected_turns=1", "--run-dir", "r",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (row,) = json.loads((tmp_path / "r" / "run.json").read_text(encoding="utf-8"))["task_results"]
    # The script writes a file, runs it and replies: three agent-loop turns, two tool calls.
    assert (row["total_turns"], row["visible_turns"], row["expected_turns"]) == (3, 2, 1)
    assert row["has_final_reply"] is True and row["turns_remaining_at_stop"] is None
    assert row["installed_tools"] == []
    assert "hello-date used 3 agent turns, over its expected_turns of 1" in proc.stderr
    assert "⚠ 3/1 turns" in (tmp_path / "r" / "run.md").read_text(encoding="utf-8")
    record = json.loads((tmp_path / "r/default/hello-date/00/task.json").read_text(encoding="utf-8"))
    source = (tmp_path / "tasks" / "hello_date.yaml").read_text(encoding="utf-8")
    assert record["task_config"]["source_yaml"] == source


def test_agentless_row_fields_and_installed_tools(tmp_path: Path) -> None:
    doc = {
        "task_id": "tools",
        "description": "agentless",
        "agent": {"type": "none"},
        "run_limits": {"expected_turns": 4},
        "sandbox": {"record_cli": [{"tool": "gh"}]},
        "pre_run": [{"command": "echo hi > out.txt"}],
        "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "out"}],
    }
    (tmp_path / "tools.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    proc = run_cli("run", "tools.yaml", "--run-dir", "r", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads((tmp_path / "r" / "run.json").read_text(encoding="utf-8"))["task_results"]
    assert row["installed_tools"] == ["record_cli:gh"]
    assert (row["total_turns"], row["visible_turns"], row["expected_turns"], row["has_final_reply"]) == (0, 0, 4, False)
    assert "expected_turns" not in proc.stderr
