"""Run a command with a hard timeout that kills its whole process group, output capped in memory."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from coder_eval.common.output_capture import Capture, drain_in_background, read_available

OUTPUT_CAP_BYTES = 100 * 1024

_live_groups: set[int] = set()
"""Process groups started here and not yet finished (for interrupt cleanup)."""


@dataclass(frozen=True)
class ExecResult:
    """What a command did. Output beyond the cap is cut; `*_truncated` says how many bytes went."""

    exit_code: int | None
    stdout: str
    stderr: str
    duration_seconds: float
    timed_out: bool = False
    stdout_truncated: int = 0
    stderr_truncated: int = 0


ShellResult = ExecResult
"""The older name of the same result."""


def truncate(text: str, cap: int = OUTPUT_CAP_BYTES) -> str:
    data = text.encode("utf-8", errors="replace")
    if len(data) <= cap:
        return text
    return data[:cap].decode("utf-8", errors="ignore") + f"\n... [truncated {len(data) - cap} bytes]"


def run_process(
    *,
    argv: Sequence[str] | None = None,
    shell: str | None = None,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    stdin: bytes | None = None,
    output_limit: int = OUTPUT_CAP_BYTES,
    keep_background: bool = False,
    started: set[int] | None = None,
) -> ExecResult:
    """Run an argv, or a script with /bin/sh, in its own session; on timeout its process group is killed.

    Output is read from pipes into a head-and-tail buffer of `output_limit` bytes per stream (see
    common/output_capture.py): the middle of a flood is counted and dropped, nothing is spooled to
    disk. The call returns when the command exits: a child it left running in the background (a
    daemon started with `&`) cannot hold it open, and keeps its pipes, drained until it exits.
    Without `stdin` the command reads EOF. Unless `keep_background`, whatever is left of its group
    afterwards is killed too. `started` collects the group id so its owner can kill it later.
    """
    if (argv is None) == (shell is None):
        raise ValueError("run_process needs exactly one of argv and shell")
    begin = time.monotonic()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        with contextlib.ExitStack() as files:
            in_f: IO[bytes] | None = None
            if stdin is not None:  # only a command given input gets a file for it
                in_f = files.enter_context(tempfile.TemporaryFile())
                in_f.write(stdin)
                in_f.seek(0)
            proc = subprocess.Popen(
                shell if shell is not None else list(argv or ()),
                shell=shell is not None,
                cwd=cwd,
                env=env,
                stdin=in_f if in_f is not None else subprocess.DEVNULL,
                stdout=out_w,
                stderr=err_w,
                start_new_session=True,
            )
    except BaseException:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
    if started is not None:
        started.add(proc.pid)
    _live_groups.add(proc.pid)
    out, err = Capture(output_limit), Capture(output_limit)
    streams = {out_r: out, err_r: err}
    for fd in streams:
        os.set_blocking(fd, False)
    timed_out = not _collect(proc, streams, begin + timeout)
    if timed_out:
        kill_group(proc.pid)
    proc.wait()
    _live_groups.discard(proc.pid)
    if not keep_background:
        kill_group(proc.pid)
    _finish_streams(streams)
    stdout, out_cut = out.text()
    stderr, err_cut = err.text()
    return ExecResult(
        exit_code=None if timed_out else proc.returncode,
        stdout=stdout,
        stderr=stderr,
        duration_seconds=time.monotonic() - begin,
        timed_out=timed_out,
        stdout_truncated=out_cut,
        stderr_truncated=err_cut,
    )


def _collect(proc: subprocess.Popen[bytes], streams: dict[int, Capture], end: float) -> bool:
    """Read the command's pipes until it exits (True) or `end` passes (False).

    One poll waits on both pipes and, where the kernel has pidfds, on the process itself, so the
    call wakes the moment the command exits; without pidfds it looks every 50 ms.
    """
    try:
        pidfd: int | None = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        pidfd = None
    poller = select.poll()
    for fd in streams:
        poller.register(fd, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    try:
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return proc.poll() is not None
            wait = left if pidfd is not None else min(left, 0.05)
            for fd, _ in poller.poll(min(wait * 1000, 2**31 - 1)):
                if fd == pidfd:
                    return True
                if not read_available(fd, streams[fd]):
                    poller.unregister(fd)
                    os.close(fd)
                    del streams[fd]
            if pidfd is None and proc.poll() is not None:
                return True
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _finish_streams(streams: dict[int, Capture]) -> None:
    """Take what the pipes still hold; a pipe a background child keeps open is drained elsewhere."""
    held = []
    for fd, capture in streams.items():
        if read_available(fd, capture):
            held.append(fd)
        else:
            os.close(fd)
    drain_in_background(held)


def exits_within(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Whether `proc` exits within `timeout` seconds, woken the moment it does.

    `Popen.wait(timeout=...)` polls with sleeps of up to 50 ms, which adds milliseconds to every
    short command; a pidfd (Linux 5.3+) becomes readable exactly when the process exits.
    """
    exited = pid_exits_within(proc.pid, timeout)
    if exited is None:  # no pidfd here: fall back to Popen's own polling
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    return exited or proc.poll() is not None


def pid_exits_within(pid: int, timeout: float) -> bool | None:
    """Whether process `pid` (a child of ours, not yet reaped) exits within `timeout` seconds.

    Does not reap it. None when the kernel or platform cannot say (no pidfd); a pid that is
    already gone counts as exited.
    """
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    except (AttributeError, OSError):
        return None
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return False
            if poller.poll(min(left * 1000, 2**31 - 1)):
                return True
    finally:
        os.close(pidfd)


def run_shell(
    command: str, *, cwd: Path, env: dict[str, str], timeout: float, kill_leftovers: bool = True
) -> ExecResult:
    """Run `command` with /bin/sh in `cwd` (see `run_process`)."""
    return run_process(shell=command, cwd=cwd, env=env, timeout=timeout, keep_background=not kill_leftovers)


def kill_running_commands() -> None:
    """Kill every command still being waited on (used when a run is interrupted)."""
    for pid in list(_live_groups):
        kill_group(pid)


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
