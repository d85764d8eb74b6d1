"""The quick start: tasks/hello_date.yaml, .env.example, and .env loading (the real environment wins)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from leftover_cli import REPO, run_cli

from coder_eval.agents.claude_code.options import bundled_cli


def quick_start_dir(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "tasks", tmp_path / "tasks")
    shutil.copy(REPO / ".env.example", tmp_path / ".env.example")
    return tmp_path


def test_env_example_lists_the_gateway_key_and_backend() -> None:
    text = (REPO / ".env.example").read_text(encoding="utf-8")
    assert "ANTHROPIC_API_KEY=" in text and "API_BACKEND" in text and "LOG_LEVEL" in text


def test_quick_start_task_validates(tmp_path: Path) -> None:
    root = quick_start_dir(tmp_path)
    proc = run_cli("plan", "tasks/hello_date.yaml", "-b", "script", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "hello-date" in proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(bundled_cli() is None, reason="no bundled Claude Code CLI")
def test_dotenv_sets_the_backend_and_the_real_environment_wins(tmp_path: Path) -> None:
    root = quick_start_dir(tmp_path)
    (root / ".env").write_text("# from cp .env.example .env\nAPI_BACKEND=script\n", encoding="utf-8")
    proc = run_cli("run", "tasks/hello_date.yaml", "--run-dir", "r1", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((root / "r1" / "run.json").read_text(encoding="utf-8"))
    assert summary["tasks_succeeded"] == 1
    # A variable already set beats the file: replay without cassettes is refused, proving it was used.
    proc = run_cli("run", "tasks/hello_date.yaml", "--run-dir", "r2", cwd=root, env={"API_BACKEND": "replay"})
    assert proc.returncode == 2 and "--backend replay needs --cassettes" in proc.stderr
