"""--log-file, -v/--verbose and LOG_LEVEL on run and evaluate, and at the root."""

from __future__ import annotations

from pathlib import Path

import yaml
from leftover_cli import REPO, run_cli


def none_task(root: Path) -> Path:
    doc = {
        "task_id": "logged",
        "description": "agentless",
        "agent": {"type": "none"},
        "pre_run": [{"command": "echo hi > out.txt"}],
        "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "out"}],
    }
    path = root / "logged.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def test_run_verbose_writes_debug_log_file(tmp_path: Path) -> None:
    task = none_task(tmp_path)
    proc = run_cli("run", task, "--run-dir", "r", "-v", "--log-file", "logs/run.log", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "logs" / "run.log").read_text(encoding="utf-8")
    assert "log level DEBUG" in text and "DEBUG coder_eval.run: default/logged #0: SUCCESS" in text


def test_log_level_env_and_root_option(tmp_path: Path) -> None:
    task = none_task(tmp_path)
    proc = run_cli("--log-file", "root.log", "run", task, "--run-dir", "r", cwd=tmp_path, env={"LOG_LEVEL": "info"})
    assert proc.returncode == 0, proc.stderr
    assert "log level INFO" in (tmp_path / "root.log").read_text(encoding="utf-8")
    assert "log level INFO" in proc.stderr  # LOG_LEVEL set: the console shows that level too
    proc = run_cli("run", task, "--run-dir", "r2", cwd=tmp_path, env={"LOG_LEVEL": "chatty"})
    assert proc.returncode == 2 and "LOG_LEVEL='CHATTY' is not a logging level" in proc.stderr


def test_evaluate_verbose(tmp_path: Path) -> None:
    proc = run_cli(
        "evaluate",
        REPO / "examples/tasks/word_count/task.yaml",
        REPO / "examples/solutions/word_count",
        "--run-dir",
        "ev",
        "-v",
        "--log-file",
        "ev.log",
        cwd=tmp_path,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "log level DEBUG" in (tmp_path / "ev.log").read_text(encoding="utf-8")
