"""Hardening: bounded memory and time, no survivors, honest partial runs, resume that refuses to mix.

Each test reproduces a failure a hostile task author, a careless agent or an impatient CI
provoked, through the real CLI in a subprocess. Tests that push a lot of data run the harness
under an address-space limit (RLIMIT_AS), so a regression fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.slow

GIB = 1024**3
AS_LIMIT = 3 * GIB
"""Address space for the harness in memory tests: far above its needs, far below a blow-up."""


def write_task(path: Path, doc: dict[str, Any]) -> Path:
    doc = {"description": "reliability check", "agent": {"type": "none"}, **doc}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def harness(
    *args: str, cwd: Path, as_limit: int | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    def limit() -> None:
        if as_limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (as_limit, as_limit))

    return subprocess.Popen(
        [sys.executable, "-m", "coder_eval", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=limit,
        start_new_session=True,
    )


def finish(proc: subprocess.Popen[str], timeout: float) -> tuple[int, str, int]:
    """Exit code, output and peak RSS (KiB) of the harness (and what it waited for)."""
    out = ""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the harness did not finish within {timeout}s")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return proc.returncode, out, int(usage.ru_maxrss)


def survivors(marker: str) -> list[str]:
    """Command lines of live processes (not zombies) that mention `marker`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and state != "Z":
            found.append(cmd)
    return found


def only_record(run_dir: Path) -> dict[str, Any]:
    records = list(run_dir.rglob("task.json"))
    assert len(records) == 1, records
    return json.loads(records[0].read_text())  # type: ignore[no-any-return]


def test_big_files_and_big_output_keep_memory_flat(tmp_path: Path) -> None:
    """A 1 GiB sparse file under file_contains / file_matches_regex and 1 GiB of command output."""
    tpl = tmp_path / "tpl"
    tpl.mkdir()
    task = write_task(
        tmp_path / "big.yaml",
        {
            "task_id": "big",
            "pre_run": [
                {"command": "truncate -s 1G big.log && printf 'NEEDLE at the end' >> big.log"},
                {"command": "head -c 1073741824 /dev/zero | tr '\\0' x", "timeout": 300},
            ],
            "success_criteria": [
                {
                    "type": "file_contains",
                    "path": "big.log",
                    "includes": ["NEEDLE at the end"],
                    "max_bytes": 2 * GIB,  # over the 1 GiB default: streamed to the end, memory flat
                    "description": "c",
                },
                {"type": "file_matches_regex", "path": "big.log", "pattern": "(x+x+)+y", "description": "r"},
                {
                    "type": "run_command",
                    "command": "head -c 1073741824 /dev/zero",
                    "timeout": 300,
                    "description": "o",
                },
            ],
        },
    )
    run_dir = tmp_path / "run"
    script = (
        "import resource, subprocess, sys\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({AS_LIMIT}, {AS_LIMIT}))\n"
        "from coder_eval.cli.app import main\n"
        "sys.argv = ['coder-eval', 'run', sys.argv[1], '--run-dir', sys.argv[2], '--preservation-mode', 'NONE']\n"
        "try:\n    main()\nfinally:\n"
        # VmHWM is this process's own high-water mark; ru_maxrss would also count the memory of
        # the (v)forking parent before exec, i.e. of pytest itself late in a long session.
        "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
        "    print('PEAK_KIB', hwm, flush=True)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(task), str(run_dir)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    peak_kib = int(proc.stdout.rsplit("PEAK_KIB", 1)[1].split()[0])
    assert peak_kib / 1024 < 200, f"harness peak RSS {peak_kib / 1024:.0f} MiB"
    record = only_record(run_dir)
    by_type = {r["criterion_type"]: r for r in record["success_criteria_results"]}
    assert by_type["file_contains"]["score"] == 1.0  # streamed to the very end
    assert by_type["file_matches_regex"]["score"] == 0.0
    assert "over the 32 MiB this criterion reads" in by_type["file_matches_regex"]["details"]
    pre = record["pre_run_results"][1]
    assert len(pre["stdout"]) < 200_000 and "truncated" in pre["stdout"]
    assert pre["stdout"].startswith("x") and pre["stdout"].rstrip().endswith("x")  # head and tail kept


def test_task_timeout_stops_a_long_hook_and_leaves_no_survivors(tmp_path: Path) -> None:
    marker = f"3{os.getpid() % 100:02d}7"
    task = write_task(
        tmp_path / "slow.yaml",
        {
            "task_id": "slow",
            "run_limits": {"task_timeout": 2},
            "pre_run": [
                {
                    "command": f"(setsid sleep {marker}1 &) ; sleep {marker}2 & sleep {marker}3; echo late > late.txt",
                    "timeout": 300,
                }
            ],
            "success_criteria": [{"type": "file_exists", "path": "late.txt", "description": "hook finished"}],
        },
    )
    begin = time.monotonic()
    proc = harness(
        "run", str(task), "--run-dir", str(tmp_path / "run"), "--preservation-mode", "DIRECT_WRITE", cwd=tmp_path
    )
    code, out, _ = finish(proc, 60)
    elapsed = time.monotonic() - begin
    assert code == 1, out
    assert elapsed < 15, f"took {elapsed:.1f}s"
    assert survivors(f"sleep {marker}") == []
    record = only_record(tmp_path / "run")
    assert record["final_status"] == "TIMEOUT"
    assert "during pre_run" in record["error_message"]
    time.sleep(1)
    assert not list((tmp_path / "run").rglob("late.txt"))  # nothing changed the workspace afterwards


def test_sigterm_mid_run_keeps_records_and_kills_everything(tmp_path: Path) -> None:
    marker = f"4{os.getpid() % 100:02d}9"
    task = write_task(
        tmp_path / "rows.yaml",
        {
            "task_id": "rows",
            "dataset": {"rows": [{"id": f"r{i}"} for i in range(4)]},
            "pre_run": [{"command": f"setsid sleep {marker} & sleep 2; echo ok > out.txt"}],
            "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "out"}],
        },
    )
    run_dir = tmp_path / "run"
    junit = tmp_path / "junit.xml"
    proc = harness("run", str(task), "--run-dir", str(run_dir), "--junit-xml", str(junit), cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not list(run_dir.rglob("task.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the second unit is in its pre_run now
    proc.send_signal(signal.SIGTERM)
    code, out, _ = finish(proc, 60)
    assert code == 143, out
    assert "Traceback" not in out
    summary = json.loads((run_dir / "run.json").read_text())
    assert summary["interrupted"] is True
    assert summary["units_planned"] == 4
    assert 1 <= summary["units_finished"] < 4 == summary["units_planned"]
    assert summary["units_finished"] == summary["tasks_run"] == len(list(run_dir.rglob("task.json")))
    assert "Interrupted" in (run_dir / "run.md").read_text()
    assert "interrupted" in junit.read_text()
    assert survivors(f"sleep {marker}") == []
    assert not (run_dir / ".sandboxes").exists() or not any((run_dir / ".sandboxes").iterdir())


def test_resume_after_a_criteria_edit_refuses_then_reruns_when_allowed(tmp_path: Path) -> None:
    doc: dict[str, Any] = {
        "task_id": "edit",
        "pre_run": [{"command": "echo hi > a.txt"}],
        "success_criteria": [{"type": "file_exists", "path": "a.txt", "description": "a"}],
    }
    task = write_task(tmp_path / "edit.yaml", doc)
    run_dir = tmp_path / "run"
    assert finish(harness("run", str(task), "--run-dir", str(run_dir), cwd=tmp_path), 60)[0] == 0
    doc["success_criteria"].append({"type": "file_exists", "path": "b.txt", "description": "b"})
    write_task(task, doc)
    code, out, _ = finish(harness("run", str(task), "--run-dir", str(run_dir), "--resume", cwd=tmp_path), 60)
    assert code == 2, out
    assert "success_criteria" in out and "--allow-changed" in out
    assert len(only_record(run_dir)["success_criteria_results"]) == 1  # the old record is untouched
    args = ("run", str(task), "--run-dir", str(run_dir), "--resume", "--allow-changed")
    code, out, _ = finish(harness(*args, cwd=tmp_path), 60)
    assert code == 1, out  # rerun under the new criteria: b.txt is missing
    assert len(only_record(run_dir)["success_criteria_results"]) == 2


def test_pathological_regex_fails_its_criterion_not_the_run(tmp_path: Path) -> None:
    task = write_task(
        tmp_path / "re.yaml",
        {
            "task_id": "re",
            "pre_run": [{"command": "python3 -c \"print('a' * 40000 + '!')\" > s.txt"}],
            "success_criteria": [
                {"type": "file_exists", "path": "s.txt", "description": "exists"},
                {"type": "file_matches_regex", "path": "s.txt", "pattern": "^(a|aa)+$", "description": "slow"},
            ],
        },
    )
    proc = harness("run", str(task), "--run-dir", str(tmp_path / "run"), cwd=tmp_path, as_limit=AS_LIMIT)
    code, out, _ = finish(proc, 120)
    assert code == 1, out
    result = only_record(tmp_path / "run")["success_criteria_results"][1]
    assert result["score"] == 0.0 and "ran longer than" in result["details"]


SPEC_ONLY_PLUGIN = """
from typing import Literal

from coder_eval.models.criteria import CRITERION_SPECS
from coder_eval.models.criteria_base import BaseCriterion


class QualityCriterion(BaseCriterion):
    type: Literal["quality_review"] = "quality_review"


def register(registrar):
    CRITERION_SPECS.add("quality_review", QualityCriterion)
"""


def _spec_only_plugin(root: Path) -> dict[str, str]:
    """An installed plugin (a dist-info on PYTHONPATH) that declares a criterion but ships no checker."""
    root.mkdir(parents=True)
    (root / "spec_only_plugin.py").write_text(SPEC_ONLY_PLUGIN)
    info = root / "spec_only_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: spec-only-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[coder_eval.plugins]\nspec_only = spec_only_plugin:register\n")
    path = os.pathsep.join(p for p in [str(root), os.environ.get("PYTHONPATH", "")] if p)
    return {**os.environ, "PYTHONPATH": path}


def test_a_gating_criterion_that_was_not_evaluated_ends_the_unit_error(tmp_path: Path) -> None:
    env = _spec_only_plugin(tmp_path / "plugin")
    task = write_task(
        tmp_path / "judge.yaml",
        {
            "task_id": "judged",
            "pre_run": [{"command": "echo hi > a.txt"}],
            "success_criteria": [
                {"type": "file_exists", "path": "a.txt", "description": "exists"},
                # the plugin declares this criterion but ships no checker: it cannot be evaluated
                {"type": "quality_review", "description": "quality"},
            ],
        },
    )
    proc = harness("run", str(task), "--run-dir", str(tmp_path / "run"), cwd=tmp_path, env=env)
    code, out, _ = finish(proc, 60)
    assert code == 1, out
    record = only_record(tmp_path / "run")
    assert record["final_status"] == "ERROR"
    assert "was not evaluated" in record["error_message"]
