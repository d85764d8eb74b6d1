"""scripts/sandbox-deps.sh (run by .ci/run) stops at once, with the daemon's own words, when dockerd cannot start."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "sandbox-deps.sh"


def _stub(folder: Path, name: str, body: str) -> None:
    (folder / name).write_text(f"#!/bin/sh\n{body}\n")
    (folder / name).chmod(0o755)


def test_a_daemon_that_cannot_start_fails_the_script_clearly(tmp_path: Path) -> None:
    stubs = tmp_path / "bin"
    stubs.mkdir()
    _stub(stubs, "docker", "exit 1")  # no daemon answers
    _stub(stubs, "dockerd", "echo 'failed to start daemon: operation not permitted (stub)' >&2; exit 1")
    for present in ("bwrap", "debootstrap"):  # nothing to install
        _stub(stubs, present, "exit 0")
    log = tmp_path / "dockerd.log"
    env = {**os.environ, "PATH": f"{stubs}{os.pathsep}{os.environ['PATH']}", "CODER_EVAL_DOCKERD_LOG": str(log)}
    done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "dockerd did not start" in done.stderr and "operation not permitted (stub)" in done.stderr, done.stderr
