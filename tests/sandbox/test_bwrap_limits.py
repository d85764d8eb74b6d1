"""sandbox.limits under bubblewrap: memory and PID caps bind (a cgroup where allowed, else prlimit)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.bwrap import BubblewrapEnvironment
from coder_eval.sandbox.drivers import PreservationMode
from coder_eval.sandbox.sandbox import Sandbox

MANY = "for i in $(seq 60); do sleep 3 & done; wait"
BIG = 'python3 -c "b = bytearray(400 * 1024 * 1024); print(len(b))"'


def _usable() -> bool:
    if shutil.which("bwrap") is None:
        return False
    probe = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"]
    return subprocess.run(probe, env={}, capture_output=True, timeout=30).returncode == 0


pytestmark = pytest.mark.skipif(not _usable(), reason="bubblewrap is not usable here (scripts/sandbox-deps.sh)")


def _box(tmp_path: Path, limits: dict[str, Any]) -> Sandbox:
    task_dir = tmp_path / "task"
    task_dir.mkdir(exist_ok=True)
    config = SandboxConfig.model_validate({"driver": "bubblewrap", "limits": limits})
    box = Sandbox(
        config,
        task_dir=task_dir,
        task_file=task_dir / "task.yaml",
        artifacts_dir=tmp_path / "out",
        mode=PreservationMode.NONE,
        scratch=tmp_path / "scratch",
    )
    box.setup()
    return box


def test_without_limits_the_commands_succeed(tmp_path: Path) -> None:
    box = _box(tmp_path, {})
    try:
        assert box.run(MANY, timeout=60).exit_code == 0
        assert box.run(BIG, timeout=60).exit_code == 0
    finally:
        box.finish()


def test_memory_and_pid_limits_bind_and_the_cgroup_goes_with_the_unit(tmp_path: Path) -> None:
    box = _box(tmp_path, {"max_memory_mb": 128, "max_pids": 20, "max_cpus": 1})
    env = box.live
    assert isinstance(env, BubblewrapEnvironment)
    cgroups = list(env.limits.dirs)
    try:
        big = box.run(BIG, timeout=60)
        assert big.exit_code != 0, big
        if cgroups:  # prlimit's process-count limit does not bind root, a cgroup does
            many = box.run(MANY, timeout=60)
            assert many.exit_code != 0 or "fork" in many.stderr.lower(), many
        assert box.run("echo fine", timeout=60).stdout.strip() == "fine"
    finally:
        box.finish()
    assert not [d for d in cgroups if d.exists()], "the unit's cgroup outlived it"


UNITS_IN_A_SUBREAPER = """
import os, sys, tempfile
from pathlib import Path
from coder_eval.common.reaper import become_subreaper
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.drivers import PreservationMode
from coder_eval.sandbox.sandbox import Sandbox

assert become_subreaper()
root = Path(tempfile.mkdtemp())
(root / "task").mkdir()
for i in range(5):
    box = Sandbox(SandboxConfig(driver="bubblewrap"), task_dir=root / "task", task_file=root / "task" / "t.yaml",
                  artifacts_dir=root / f"out{i}", mode=PreservationMode.NONE, scratch=root / "scratch")
    box.setup()
    box.run("(setsid sleep 30 &); echo hi > out.txt", timeout=30, kill_leftovers=False)
    box.kill_processes()
    box.finish()
zombies = []
for pid in os.listdir("/proc"):
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        continue
    fields = stat.rsplit(")", 1)[-1].split()
    if fields[0] == "Z" and int(fields[1]) == os.getpid():
        zombies.append(pid)
print(len(zombies))
"""


def test_finished_units_leave_no_zombie_in_a_subreaper_harness(tmp_path: Path) -> None:
    """The namespace's init, re-parented to the harness when bwrap's outer process exits first, is collected."""
    import sys

    done = subprocess.run(
        [sys.executable, "-c", UNITS_IN_A_SUBREAPER], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0", done.stdout + done.stderr
