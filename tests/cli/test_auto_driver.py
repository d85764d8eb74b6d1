"""`auto` picks bubblewrap where it works; where it does not, it runs tempdir and says so at plan and run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow

WARNING = "not a security boundary"


def _task(root: Path, driver: str | None) -> Path:
    doc = {
        "task_id": f"auto-{driver or 'default'}",
        "description": "driver choice",
        "initial_prompt": "x",
        "agent": {"type": "none"},
        "pre_run": [{"command": "echo made > out.txt"}],
        "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "ran"}],
    }
    if driver is not None:
        doc["sandbox"] = {"driver": driver}
    path = root / f"{doc['task_id']}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _cli(args: list[str], cwd: Path, broken_bwrap: bool) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    if broken_bwrap:  # a bwrap that cannot create namespaces, as on a machine that forbids them
        fake = cwd / "fakebin"
        fake.mkdir(exist_ok=True)
        (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
        (fake / "bwrap").chmod(0o755)
        env["PATH"] = f"{fake}{os.pathsep}{env['PATH']}"
    cmd = [sys.executable, "-m", "coder_eval", *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def test_auto_falls_back_to_tempdir_with_a_warning_at_plan_and_run(tmp_path: Path) -> None:
    task = _task(tmp_path, None)
    plan = _cli(["plan", str(task)], tmp_path, broken_bwrap=True)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert WARNING in plan.stdout + plan.stderr
    run = _cli(["run", str(task), "--run-dir", str(tmp_path / "run")], tmp_path, broken_bwrap=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (run.stdout + run.stderr).count(WARNING) == 1, "one line, once"
    (record,) = [json.loads(p.read_text()) for p in (tmp_path / "run").rglob("task.json")]
    assert record["final_status"] == "SUCCESS"


def test_no_warning_where_bubblewrap_works_or_the_task_names_its_driver(tmp_path: Path) -> None:
    named = _task(tmp_path, "tempdir")
    quiet = _cli(["plan", str(named)], tmp_path, broken_bwrap=True)
    assert quiet.returncode == 0 and WARNING not in quiet.stdout + quiet.stderr
    probe = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "/bin/true"]
    if shutil.which("bwrap") is None or subprocess.run(probe, capture_output=True, timeout=30).returncode != 0:
        pytest.skip("bubblewrap is not usable here (scripts/sandbox-deps.sh)")
    default = _task(tmp_path, None)
    run = _cli(["run", str(default), "--run-dir", str(tmp_path / "run")], tmp_path, broken_bwrap=False)
    assert run.returncode == 0 and WARNING not in run.stdout + run.stderr, run.stdout + run.stderr


def test_a_named_bubblewrap_that_cannot_work_is_refused_by_plan_and_run(tmp_path: Path) -> None:
    task = _task(tmp_path, "bubblewrap")
    plan = _cli(["plan", str(task)], tmp_path, broken_bwrap=True)
    assert plan.returncode == 1 and "sandbox driver bubblewrap" in plan.stdout, plan.stdout + plan.stderr
    run = _cli(["run", str(task), "--run-dir", str(tmp_path / "run")], tmp_path, broken_bwrap=True)
    assert run.returncode == 2 and "sandbox driver bubblewrap" in " ".join(run.stderr.split()), run.stderr
    assert not (tmp_path / "run").exists()
