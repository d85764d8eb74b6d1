"""Helpers: write a task and its script, run `coder-eval run -b script`, read task.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

CLI_TIMEOUT = 240


def claude_task(task_id: str, criteria: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "description": f"judges e2e: {task_id}",
        "initial_prompt": "Do the task.",
        "agent": {
            "type": "claude-code",
            "permission_mode": "acceptEdits",
            "allowed_tools": ["Read", "Write", "Edit", "Bash"],
            "setting_sources": [],
        },
        "success_criteria": criteria,
        **extra,
    }


def run(
    tmp_path: Path, doc: dict[str, Any], script: dict[str, Any], *args: str, run_dir: str = "run"
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    task = tmp_path / "task.yaml"
    task.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    (tmp_path / "task.script.yaml").write_text(yaml.safe_dump(script, sort_keys=False), encoding="utf-8")
    cmd = [sys.executable, "-m", "coder_eval", "run", str(task), "--run-dir", run_dir, "-b", "script", *args]
    env = {k: v for k, v in os.environ.items() if k not in ("API_BACKEND", "ANTHROPIC_API_KEY")}
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=CLI_TIMEOUT)
    return tmp_path / run_dir, proc


def task_json(run_dir: Path, task_id: str, replicate: str = "00", variant: str = "default") -> dict[str, Any]:
    path = run_dir / variant / task_id / replicate / "task.json"
    assert path.is_file(), f"no task.json at {path}"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def results(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["description"]: r for r in record["success_criteria_results"]}
