"""`run` and `execute` through the CLI: layout, repeats, filters, junit, execute→grade, exit codes, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from clirun import cli

pytestmark = pytest.mark.slow


def task(
    tmp_path: Path,
    name: str,
    *,
    tags: list[str] | None = None,
    pre: str = "printf hello > out.txt",
    skip: bool = False,
    extra: dict | None = None,
) -> Path:
    doc = {
        "task_id": name,
        "description": f"{name} task",
        "agent": {"type": "none"},
        "tags": tags or [],
        "skip": skip,
        "pre_run": [{"command": pre}],
        "success_criteria": [
            {"type": "file_contains", "path": "out.txt", "includes": ["hello"], "description": "says hello"}
        ],
    }
    doc.update(extra or {})
    path = tmp_path / "tasks" / f"{name}.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(yaml.safe_dump(doc))
    return path


def records(run_dir: Path) -> dict[str, dict]:
    return {
        str(p.parent.relative_to(run_dir)): json.loads(p.read_text())
        for p in run_dir.rglob("task.json")
        if "artifacts" not in p.parts
    }


def test_layout_repeats_and_latest(tmp_path):
    task(tmp_path, "alpha")
    proc = cli("run", "tasks", "--repeats", "2", "-j", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    latest = tmp_path / "runs" / "latest"
    assert latest.is_symlink()
    assert set(records(latest.resolve())) == {"default/alpha/00", "default/alpha/01"}
    summary = json.loads((latest / "run.json").read_text())
    assert summary["tasks_run"] == 2 and summary["pass_rate"] == 1.0 and summary["max_parallel"] == 2


def test_dataset_rows_get_their_own_level(tmp_path):
    task(tmp_path, "ds", extra={"dataset": {"rows": [{"id": "a"}, {"id": "b"}]}})
    run_dir = tmp_path / "r"
    assert cli("run", "tasks/ds.yaml", "--run-dir", run_dir, cwd=tmp_path).returncode == 0
    assert set(records(run_dir)) == {"default/ds/a/00", "default/ds/b/00"}


def test_tags_skip_and_exit_codes(tmp_path):
    task(tmp_path, "good", tags=["smoke"])
    task(tmp_path, "bad", tags=["slow"], pre="true")
    task(tmp_path, "parked", tags=["smoke"], skip=True)
    only_smoke = cli("run", "tasks", "--tags", "smoke", "--run-dir", tmp_path / "r1", cwd=tmp_path)
    assert only_smoke.returncode == 0
    assert set(records(tmp_path / "r1")) == {"default/good/00"}
    summary = json.loads((tmp_path / "r1" / "run.json").read_text())
    assert summary["skipped_tasks"][0]["reason"].startswith("skip: true")
    everything = cli("run", "tasks", "--include-skipped", "--run-dir", tmp_path / "r2", cwd=tmp_path)
    assert everything.returncode == 1  # `bad` fails
    assert set(records(tmp_path / "r2")) == {"default/good/00", "default/bad/00", "default/parked/00"}
    excluded = cli("run", "tasks", "--exclude-tags", "slow", "--run-dir", tmp_path / "r3", cwd=tmp_path)
    assert excluded.returncode == 0


def test_invalid_task_file_stops_the_run_before_anything_starts(tmp_path):
    task(tmp_path, "good")
    (tmp_path / "tasks" / "broken.yaml").write_text("task_id: broken\ndescription: x\n")
    proc = cli("run", "tasks", "--run-dir", tmp_path / "r", cwd=tmp_path)
    assert proc.returncode == 2
    assert "broken.yaml" in proc.stderr and "nothing was run" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r").exists()


def test_junit_xml_during_a_run(tmp_path):
    task(tmp_path, "good")
    task(tmp_path, "bad", pre="true")
    out = tmp_path / "junit.xml"
    proc = cli("run", "tasks", "--junit-xml", out, "--run-dir", tmp_path / "r", cwd=tmp_path)
    assert proc.returncode == 1
    root = ET.parse(out).getroot()
    assert len(root.findall(".//testcase")) == 2 and len(root.findall(".//failure")) == 1


def test_execute_then_grade_in_place(tmp_path):
    task(tmp_path, "alpha")
    run_dir = tmp_path / "r"
    executed = cli("execute", "tasks", "--run-dir", run_dir, cwd=tmp_path)
    assert executed.returncode == 0
    row = records(run_dir)["default/alpha/00"]
    assert row["final_status"] == "NOT_GRADED" and row["weighted_score"] is None
    assert json.loads((run_dir / "run.json").read_text())["pass_rate"] is None
    graded = cli("evaluate", run_dir, cwd=tmp_path)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    row = records(run_dir)["default/alpha/00"]
    assert row["final_status"] == "SUCCESS" and row["weighted_score"] == 1.0
    assert (run_dir / "default" / "alpha" / "00" / "task.execute.json").is_file()
    assert json.loads((run_dir / "run.json").read_text())["pass_rate"] == 1.0


def test_run_resume_grades_rows_execute_left(tmp_path):
    task(tmp_path, "alpha")
    run_dir = tmp_path / "r"
    assert cli("execute", "tasks", "--run-dir", run_dir, cwd=tmp_path).returncode == 0
    resumed = cli("run", "tasks", "--resume", "--run-dir", run_dir, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert records(run_dir)["default/alpha/00"]["final_status"] == "SUCCESS"


def test_regrade_refuses_recorded_shell_unless_allowed(tmp_path):
    task(
        tmp_path,
        "cmd",
        extra={"success_criteria": [{"type": "run_command", "command": "test -f out.txt", "description": "exists"}]},
    )
    run_dir = tmp_path / "r"
    assert cli("execute", "tasks", "--run-dir", run_dir, cwd=tmp_path).returncode == 0
    refused = cli("evaluate", run_dir, cwd=tmp_path)
    assert refused.returncode == 1 and "--allow-recorded-commands" in refused.stderr
    allowed = cli("evaluate", run_dir, "--allow-recorded-commands", cwd=tmp_path)
    assert allowed.returncode == 0


def test_resume_needs_run_dir(tmp_path):
    task(tmp_path, "alpha")
    proc = cli("run", "tasks", "--resume", cwd=tmp_path)
    assert proc.returncode == 2 and "--run-dir" in proc.stderr


def test_ctrl_c_keeps_finished_records_and_exits_130(tmp_path):
    task(tmp_path, "fast")
    task(tmp_path, "slow", pre="sleep 60")
    run_dir = tmp_path / "r"
    proc = subprocess.Popen(
        [sys.executable, "-m", "coder_eval", "run", "tasks", "-j", "2", "--run-dir", str(run_dir)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (run_dir / "default" / "fast" / "00" / "task.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        code = proc.wait(timeout=60)
        assert time.monotonic() - sent < 15, "the running pre_run (sleep 60) must be killed, not waited for"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert code == 130
    assert "default/fast/00" in records(run_dir)
    assert (run_dir / "run.json").is_file()
