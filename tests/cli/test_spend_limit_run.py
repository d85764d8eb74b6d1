"""`run --max-cost-usd` end to end: Claude Code on the scripted model, billed at a priced model's rates.

The script names a model on the rate card and fixes the tokens of every call, so each unit costs
the same few tenths of a cent. A limit below one unit's cost lets the first unit finish and
launches no other; `--resume` then runs the rest.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from clirun import cli

from coder_eval.agents.claude_code.options import bundled_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here"),
]


def write_priced_task(root: Path) -> Path:
    """A task whose scripted model reports `claude-sonnet-4-5` and 1000 input / 100 output tokens per call."""
    task = {
        "task_id": "priced",
        "description": "write the answer at a price",
        "initial_prompt": "Write the answer to out.txt.",
        "agent": {
            "type": "claude-code",
            "model": "claude-sonnet-4-5",
            "permission_mode": "acceptEdits",
            "allowed_tools": ["Read", "Write", "Edit", "Bash"],
            "setting_sources": [],
        },
        "success_criteria": [
            {"type": "file_contains", "path": "out.txt", "includes": ["forty-two"], "description": "right answer"}
        ],
    }
    script = {
        "model": "claude-sonnet-4-5",
        "tokens": {"input": 1000, "output": 100},
        "steps": [{"write_file": {"path": "out.txt", "content": "forty-two\n"}}, {"reply": "Done."}],
    }
    (root / "priced.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
    (root / "priced.script.yaml").write_text(yaml.safe_dump(script, sort_keys=False), encoding="utf-8")
    return root / "priced.yaml"


def test_spend_limit_stops_launching_and_resume_finishes(tmp_path: Path) -> None:
    task = write_priced_task(tmp_path)
    run_dir = tmp_path / "run"
    common = ("run", task, "-b", "script", "--repeats", "3", "-j", "1", "--run-dir", run_dir)
    env = {"API_BACKEND": ""}
    proc = cli(*common, "--max-cost-usd", "0.001", cwd=tmp_path, timeout=600, env=env)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "spend limit reached" in output and "2 unit(s) not launched" in output and "--resume" in output
    summary = json.loads((run_dir / "run.json").read_text())
    assert summary["interrupted"] is True and summary["units_planned"] == 3 and summary["units_finished"] == 1
    assert "spend limit reached" in summary["interrupt_reason"]
    assert summary["total_cost_usd"] > 0.001
    assert sorted(p.name for p in (run_dir / "default" / "priced").iterdir()) == ["00"]
    rebuilt = cli("aggregate", run_dir, "-o", tmp_path / "rebuilt", cwd=tmp_path)  # from the records alone
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    again = json.loads((tmp_path / "rebuilt" / "run.json").read_text())
    assert again["interrupted"] is True and again["units_planned"] == 3 and again["units_finished"] == 1
    assert again["interrupt_reason"] == summary["interrupt_reason"]
    assert "Interrupted: 1 of 3 planned units" in (tmp_path / "rebuilt" / "run.md").read_text()

    resumed = cli(*common, "--resume", cwd=tmp_path, timeout=600, env=env)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    summary = json.loads((run_dir / "run.json").read_text())
    assert summary["interrupted"] is False and summary["units_finished"] == 3 and summary["tasks_succeeded"] == 3
    assert summary["interrupt_reason"] is None
