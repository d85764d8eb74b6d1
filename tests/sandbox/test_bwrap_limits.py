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
