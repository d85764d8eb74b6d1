"""Run a command with a hard timeout that kills its whole process group, output capped."""

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

    Output goes to temporary files rather than pipes, so a child the command leaves running in
    the background (a daemon started with `&`) cannot hold the call open. Without `stdin` the
    command reads EOF. Unless `keep_background`, whatever is left of its group afterwards is
    killed too. `started` collects the group id so its owner can kill it later.
    """
    if (argv is None) == (shell is None):
        raise ValueError("run_process needs exactly one of argv and shell")
    begin = time.monotonic()
    with contextlib.ExitStack() as files:
        out_f = files.enter_context(tempfile.TemporaryFile())
        err_f = files.enter_context(tempfile.TemporaryFile())
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
            stdout=out_f,
            stderr=err_f,
            start_new_session=True,
        )
        if started is not None:
            started.add(proc.pid)
        timed_out = False
        _live_groups.add(proc.pid)
        if not exits_within(proc, timeout):
            timed_out = True
            kill_group(proc.pid)
        proc.wait()
        _live_groups.discard(proc.pid)
        if not keep_background:
            kill_group(proc.pid)
        stdout, out_cut = _read_capped(out_f, output_limit)
        stderr, err_cut = _read_capped(err_f, output_limit)
    return ExecResult(
        exit_code=None if timed_out else proc.returncode,
        stdout=stdout,
        stderr=stderr,
        duration_seconds=time.monotonic() - begin,
        timed_out=timed_out,
        stdout_truncated=out_cut,
        stderr_truncated=err_cut,
    )


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


def _read_capped(fh: IO[bytes], cap: int) -> tuple[str, int]:
    """The spooled output, or its first and last `cap/2` bytes with a note of how much was cut."""
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(0)
    if size <= cap:
        return fh.read(cap).decode("utf-8", errors="replace"), 0
    head = fh.read(cap // 2)
    fh.seek(size - (cap - cap // 2))
    tail = fh.read()
    cut = size - len(head) - len(tail)
    text = head.decode("utf-8", errors="replace") + f"\n... [truncated {cut} bytes] ...\n"
    return text + tail.decode("utf-8", errors="replace"), cut


def kill_running_commands() -> None:
    """Kill every command still being waited on (used when a run is interrupted)."""
    for pid in list(_live_groups):
        kill_group(pid)


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
