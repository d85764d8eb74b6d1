"""Shared by the hygiene tests of tests/security: the CLI as an operator, records, what reached the host.

The operators (root, an ordinary user) and the drivers come from `operators.py`; this adds what
those tests need beyond `Operator.cli`: the same command line for a pseudo-terminal or a watched
process, task files, and measures of the disk.
"""

from __future__ import annotations

import grp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from operators import BOOT, SITE, Operator, _system_python, require_driver

TIMEOUT = 900


def need_driver(name: str) -> None:
    if name != "tempdir":
        require_driver(name)


def operator_command(
    op: Operator, args: list[str | Path], env: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment `op.cli(*args, env=env)` would use, for callers that run it themselves."""
    path = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"
    base = {"HOME": str(op.home), "PATH": path, "LANG": "C.UTF-8", **(env or {})}
    words = [str(a) for a in args]
    if op.name == "root":
        return [sys.executable, "-m", "coder_eval", *words], base
    python = _system_python()
    assert python is not None
    try:
        groups = ["--groups", str(grp.getgrnam("docker").gr_gid)]
    except KeyError:
        groups = ["--clear-groups"]
    ids = ["--reuid", str(op.uid), "--regid", str(op.uid), *groups]
    return [shutil.which("setpriv") or "setpriv", *ids, "--", python, "-c", BOOT, SITE, *words], base


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
    op: Operator, args: list[str | Path], *, env: dict[str, str] | None, watch: list[Path], cap: int
) -> tuple[int, str, int]:
    """The CLI as `op`, killed (and the test failed) the moment the disk under `watch` (files on disk
    and files the harness holds open there) passes `cap` bytes: a regression that fills the disk
    fails the test instead of the machine. Returns (exit code, output, peak bytes seen)."""
    import signal
    import threading
    import time

    argv, full_env = operator_command(op, args, env)
    proc = subprocess.Popen(
        argv, cwd=op.work, env=full_env, stdout=subprocess.PIPE,
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
        out, _ = proc.communicate(timeout=TIMEOUT)
    finally:
        stop.set()
        sampler.join()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if over.is_set():
        pytest.fail(f"the harness passed {cap / 1048576:.0f} MiB on disk under {watch} and was killed")
    return proc.returncode, out, peak
