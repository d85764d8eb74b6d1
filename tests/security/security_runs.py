"""Helpers of the record and reference tests in this directory: drivers, a CLI run as an operator
(root or an ordinary user, see operators.py), and the leak checks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from operators import Operator

DRIVERS = ["tempdir", "bubblewrap", "docker"]
ISOLATING = ["bubblewrap", "docker"]


def driver_available(name: str) -> bool:
    """Probed from outside, without loading the drivers into this process."""
    if name == "bubblewrap":
        if shutil.which("bwrap") is None:
            return False
        probe = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"]
        return subprocess.run(probe, env={}, capture_output=True, timeout=30).returncode == 0
    if name == "docker":
        if shutil.which("docker") is None:
            return False
        if subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode:
            return False
        image = os.environ.get("CODER_EVAL_DOCKER_IMAGE", "coder-eval-base:latest")
        return subprocess.run(["docker", "image", "inspect", image], capture_output=True, timeout=30).returncode == 0
    return True


def need(driver: str) -> None:
    if not driver_available(driver):
        pytest.skip(f"the {driver} driver is not usable here (scripts/sandbox-deps.sh sets it up)")


def write_task(folder: Path, doc: dict[str, Any], script: dict[str, Any] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    task = folder / f"{doc['task_id']}.yaml"
    task.write_text(yaml.safe_dump(doc, sort_keys=False))
    if script is not None:
        task.with_name(f"{doc['task_id']}.script.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    return task


def run(op: Operator, task: Path, run_dir: Path, driver: str, *extra: str) -> tuple[list[dict[str, Any]], str]:
    """`coder-eval run` of one task under `driver` as `op`; its task.json records and the CLI's output."""
    op.own(task.parent)
    proc = op.cli("run", str(task), "--run-dir", str(run_dir), "--driver", driver, *extra, cwd=task.parent)
    records = [json.loads(p.read_text()) for p in sorted(run_dir.rglob("task.json")) if "artifacts" not in p.parts]
    assert records, proc.stdout + proc.stderr
    return records, proc.stdout + proc.stderr


def survivors(marker: str) -> list[int]:
    """Live processes whose command line carries `marker` (the ones a test's attack started)."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                if marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(pid))
            except OSError:
                continue
    return found


def assert_no_survivors(marker: str) -> None:
    try:
        assert not survivors(marker), "a process the attack started outlived its unit"
    finally:
        for pid in survivors(marker):
            os.kill(pid, 9)


def files_holding(root: Path, needles: list[str]) -> list[str]:
    """Every regular file under `root` holding one of `needles` (links are not followed)."""
    found = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found += [f"{path}: {n}" for n in needles if n.encode() in data]
    return found


def venv_state() -> set[str]:
    """What the harness's virtual environment holds at its top levels (a planted file would show)."""
    site = Path(sys.prefix)
    found = [*site.glob("*/*"), *site.glob("lib/*/*/*")]
    return {str(p.relative_to(site)) for p in found}


def criteria(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["description"]: c for c in record["success_criteria_results"]}


def unit_dir(run_dir: Path, record: dict[str, Any]) -> Path:
    return run_dir / record["variant_id"] / Path(*record["task_id"].split("/")) / f"{record['replicate_index']:02d}"
