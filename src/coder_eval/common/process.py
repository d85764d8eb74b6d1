"""Run a shell command with a hard timeout that kills its whole process group."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

OUTPUT_CAP_BYTES = 100 * 1024

_live_groups: set[int] = set()
"""Process groups started by run_shell and not yet finished (for interrupt cleanup)."""


@dataclass(frozen=True)
class ShellResult:
    exit_code: int | None
    stdout: str
    stderr: str
    duration_seconds: float
    timed_out: bool = False


def truncate(text: str, cap: int = OUTPUT_CAP_BYTES) -> str:
    data = text.encode("utf-8", errors="replace")
    if len(data) <= cap:
        return text
    return data[:cap].decode("utf-8", errors="ignore") + f"\n... [truncated {len(data) - cap} bytes]"


def run_shell(
    command: str, *, cwd: Path, env: dict[str, str], timeout: float, kill_leftovers: bool = True
) -> ShellResult:
    """Run `command` with /bin/sh in `cwd`; on timeout its process group is killed.

    Output goes to temporary files rather than pipes, so a child the command leaves
    running in the background (a daemon started with `&`) cannot hold the call open.
    stdin is closed so a command that reads it sees EOF instead of hanging.
    """
    start = time.monotonic()
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        proc = subprocess.Popen(
            command,
            shell=True,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_f,
            stderr=err_f,
            start_new_session=True,
        )
        timed_out = False
        _live_groups.add(proc.pid)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            proc.wait()
        _live_groups.discard(proc.pid)
        if kill_leftovers:
            _kill_group(proc.pid)
        out_f.seek(0)
        err_f.seek(0)
        stdout = _read_capped(out_f)
        stderr = _read_capped(err_f)
    return ShellResult(
        exit_code=None if timed_out else proc.returncode,
        stdout=stdout,
        stderr=stderr,
        duration_seconds=time.monotonic() - start,
        timed_out=timed_out,
    )


def _read_capped(fh: IO[bytes]) -> str:
    data = fh.read(OUTPUT_CAP_BYTES + 1)
    rest = len(fh.read()) if len(data) > OUTPUT_CAP_BYTES else 0
    text = data[:OUTPUT_CAP_BYTES].decode("utf-8", errors="replace")
    if len(data) > OUTPUT_CAP_BYTES:
        text += f"\n... [truncated {rest + 1} bytes]"
    return text


def kill_running_commands() -> None:
    """Kill every command run_shell is still waiting on (used when a run is interrupted)."""
    for pid in list(_live_groups):
        _kill_group(pid)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
