"""Shared by the hostile-agent tests: drivers, the CLI in a subprocess, what reached the host."""

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

TIMEOUT = 600
DRIVERS = ("tempdir", "bubblewrap", "docker")


def driver_available(name: str) -> bool:
    """Probed from outside, without loading the drivers into the test process."""
    if name == "bubblewrap":
        if shutil.which("bwrap") is None:
            return False
        probe = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"]
        return subprocess.run(probe, env={}, capture_output=True, timeout=30).returncode == 0
    if name == "docker":
        if shutil.which("docker") is None or subprocess.run(["docker", "info"], capture_output=True).returncode:
            return False
        image = os.environ.get("CODER_EVAL_DOCKER_IMAGE", "coder-eval-base:latest")
        return subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode == 0
    return True


def need_driver(name: str) -> None:
    if not driver_available(name):
        pytest.skip(f"the {name} driver is not usable here (scripts/sandbox-deps.sh sets it up)")


def write_task(folder: Path, doc: dict[str, Any], script: dict[str, Any] | None = None) -> Path:
    """`folder/<task_id>.yaml` (and its scripted-model script beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    task = folder / f"{doc['task_id']}.yaml"
    task.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    if script is not None:
        (folder / f"{doc['task_id']}.script.yaml").write_text(
            yaml.safe_dump(script, sort_keys=False, allow_unicode=True), encoding="utf-8"
        )
    return task


def claude_agent(**extra: Any) -> dict[str, Any]:
    return {
        "type": "claude-code",
        "permission_mode": "acceptEdits",
        "allowed_tools": ["Bash", "Write", "Read"],
        "setting_sources": [],
        **extra,
    }


def harness_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "COLUMNS": "200", **(extra or {})}
    env.pop("API_BACKEND", None)
    return env


def coder_eval(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: float = TIMEOUT, **popen: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "coder_eval", *map(str, args)],
        cwd=cwd,
        env=env or harness_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        **popen,
    )


def records(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(run_dir.rglob("task.json"))]


def criteria(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["description"]: c for c in record["success_criteria_results"]}


def tree(root: Path, *, skip: tuple[Path, ...] = ()) -> set[str]:
    """Every path under `root` (not entering `skip`), relative, for a before/after comparison."""
    found: set[str] = set()
    for dirpath, dirs, files in os.walk(root):
        here = Path(dirpath)
        dirs[:] = [d for d in dirs if here / d not in skip]
        found.update(str((here / name).relative_to(root)) for name in [*dirs, *files])
    return found


def disk_bytes(root: Path) -> int:
    """Blocks allocated under `root` (holes cost nothing), links not followed."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                continue
    return total


def survivors(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and state != "Z":
            found.append(int(pid))
    return found


def open_file_bytes(pid: int, root: Path) -> int:
    """Disk blocks held by files under `root` that process `pid` has open (unlinked ones too)."""
    total = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(str(root)):
                total += os.stat(f"/proc/{pid}/fd/{fd}").st_blocks * 512
        except OSError:
            continue
    return total


def run_disk_capped(
    args: list[str | Path], *, cwd: Path, env: dict[str, str], watch: list[Path], cap: int, timeout: float = TIMEOUT
) -> tuple[int, str, int]:
    """The CLI, killed (and the test failed) the moment the disk under `watch` (files on disk and
    files the harness holds open there) passes `cap` bytes: a regression that fills the disk fails
    the test instead of the machine. Returns (exit code, output, peak bytes seen)."""
    import signal
    import threading
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "coder_eval", *map(str, args)], cwd=cwd, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    peak = 0
    over = threading.Event()
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            used = sum(disk_bytes(root) + open_file_bytes(proc.pid, root) for root in watch)
            peak = max(peak, used)
            if used > cap:
                over.set()
                os.killpg(proc.pid, signal.SIGKILL)
                return
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, _ = proc.communicate(timeout=timeout)
    finally:
        stop.set()
        sampler.join()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if over.is_set():
        pytest.fail(f"the harness passed {cap / 1048576:.0f} MiB on disk under {watch} and was killed")
    return proc.returncode, out, peak
