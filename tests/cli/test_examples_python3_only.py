"""The example suite and the demo run green where the only interpreter on PATH is `python3`.

The tasks call `python`; each unit's own environment provides it, so the harness's venv is not put
on PATH (as `scripts/demo.sh` no longer does) and nothing else on the machine needs a `python`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coder_eval.agents.claude_code.options import bundled_cli

REPO = Path(__file__).resolve().parents[2]
VENV = Path(sys.prefix)
BIN = Path(sys.executable).with_name("coder-eval")
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="no bundled Claude Code CLI"),
    pytest.mark.skipif(shutil.which("python", path=SYSTEM_PATH) is not None, reason="this machine has a `python`"),
    pytest.mark.skipif(shutil.which("python3", path=SYSTEM_PATH) is None, reason="this machine has no `python3`"),
]


def _driver_ready(driver: str) -> bool:
    if driver == "docker":
        from coder_eval.sandbox.docker import docker_available

        return docker_available()
    from coder_eval.sandbox.bwrap import bwrap_works

    return driver == "tempdir" or bwrap_works()


def _system_env(home: Path) -> dict[str, str]:
    """What a shell on a machine without any `python` has: the system PATH, nothing of the harness's venv."""
    return {"PATH": SYSTEM_PATH, "HOME": os.environ.get("HOME", str(home)), "LANG": "C.UTF-8", "NO_COLOR": "1"}


def _check_records(run_dir: Path, expected: set[str]) -> None:
    records = [json.loads(p.read_text()) for p in run_dir.rglob("task.json")]
    assert {r["task_id"].split("/")[0] for r in records} == expected  # a dataset row is TASK/ROW
    assert all(r["final_status"] == "SUCCESS" for r in records), [(r["task_id"], r["final_status"]) for r in records]
    for record in records:
        python = record["environment_info"]["python_env"]
        assert python["kind"] == "venv" and python["cloned"] is True, python


def _example_ids(*files: str) -> set[str]:
    """The task ids of the examples the demo runs (all but those tagged example-fail), or of `files`."""
    import yaml

    paths = [REPO / f for f in files] or sorted((REPO / "examples" / "tasks").rglob("task.yaml"))
    found = (yaml.safe_load(path.read_text(encoding="utf-8")) for path in paths)
    return {task["task_id"] for task in found if "example-fail" not in (task.get("tags") or [])}


@pytest.mark.parametrize(
    ("driver", "tasks"),
    [
        pytest.param("tempdir", ["examples/tasks"], id="tempdir"),
        pytest.param("bubblewrap", ["examples/tasks"], id="bubblewrap"),
        pytest.param("docker", ["examples/tasks/word_count/task.yaml"], id="docker"),
    ],
)
def test_examples_pass_with_only_python3_on_path(tmp_path: Path, driver: str, tasks: list[str]) -> None:
    if not _driver_ready(driver):
        pytest.skip(f"{driver} is not usable here")
    run_dir = tmp_path / "run"
    argv = [str(BIN), "run", *tasks, "-b", "script", "--exclude-tags", "example-fail", "-j", "2"]
    argv += ["--driver", driver, "--run-dir", str(run_dir)]
    proc = subprocess.run(argv, cwd=REPO, env=_system_env(tmp_path), capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    _check_records(run_dir, _example_ids(*(t for t in tasks if t.endswith(".yaml"))))


def test_the_demo_script_runs_green_with_only_python3_on_path(tmp_path: Path) -> None:
    """scripts/demo.sh itself, in a copy of the checkout whose bootstrap is already done.

    The copy holds the real demo script and examples, the harness's venv linked in as `.venv`, and
    a bootstrap that does nothing (the real one installs from a package index, which tests never reach)."""
    if not _driver_ready("bubblewrap"):
        pytest.skip("bubblewrap (the demo's driver here) is not usable")
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy2(REPO / "scripts" / "demo.sh", checkout / "scripts" / "demo.sh")
    bootstrap = checkout / "scripts" / "bootstrap.sh"
    bootstrap.write_text("#!/bin/sh\n# already bootstrapped: the venv is the harness's own\n", encoding="utf-8")
    bootstrap.chmod(0o755)
    shutil.copytree(REPO / "examples", checkout / "examples")
    (checkout / ".venv").symlink_to(VENV)
    proc = subprocess.run(
        [str(checkout / "scripts" / "demo.sh")],
        cwd=tmp_path,
        env=_system_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    latest = checkout / "runs" / "latest"
    assert latest.is_dir(), proc.stdout[-2000:]
    _check_records(latest.resolve(), _example_ids())
