"""SIGKILL a running batch, then --resume: every row once in run.json, no half-written record anywhere."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow

ROWS = 200


def write_task(path: Path, rows: int) -> None:
    path.write_text(
        yaml.safe_dump(
            {
                "task_id": "many",
                "description": "dataset rows written by pre_run",
                "agent": {"type": "none"},
                "dataset": {"rows": [{"id": f"r{i:03d}", "word": f"w{i}"} for i in range(rows)]},
                "pre_run": [{"command": "sleep 0.03; printf ok > out.txt"}],
                "success_criteria": [
                    {
                        "type": "file_contains",
                        "path": "out.txt",
                        "includes": ["ok"],
                        "description": "row ${row.id} wrote out.txt",
                    }
                ],
            }
        )
    )


def cli(*args: str, cwd: Path) -> list[str]:
    return [sys.executable, "-m", "coder_eval", *args]


def finished(run_dir: Path) -> int:
    """task.json files so far; os.walk tolerates sandboxes moving underneath it mid-run."""
    return sum("task.json" in files for _, _, files in os.walk(run_dir / "default"))


@pytest.mark.parametrize("attempt", range(3))
def test_kill_then_resume(tmp_path: Path, attempt: int) -> None:
    task = tmp_path / "many.yaml"
    write_task(task, ROWS)
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        cli("run", str(task), "-j", "2", "--run-dir", str(run_dir), cwd=tmp_path),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        target = 20 + 25 * attempt
        while finished(run_dir) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    killed_at = finished(run_dir)
    assert 0 < killed_at < ROWS, "the kill should land mid-run"
    done = subprocess.run(
        cli("run", str(task), "-j", "2", "--run-dir", str(run_dir), "--resume", cwd=tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((run_dir / "run.json").read_text())
    ids = [row["task_id"] for row in summary["task_results"]]
    assert len(ids) == ROWS and len(set(ids)) == ROWS
    assert summary["tasks_succeeded"] == ROWS
    for record in run_dir.rglob("task.json"):
        json.loads(record.read_text())  # every record parses: none is half-written
    assert not [p for p in run_dir.rglob("*.tmp")]
    assert not (run_dir / ".sandboxes").exists() or not any((run_dir / ".sandboxes").iterdir())
