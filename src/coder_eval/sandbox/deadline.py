"""One deadline per unit: set-up, pre_run, the agent, grading commands and post_run share it.

`Deadline` is the clock. `BoundedEnvironment` wraps a unit's SandboxEnvironment so that no
command outlives the deadline (its timeout is cut to what is left; after expiry nothing starts),
and `Watchdog` kills every process of the unit the moment the deadline passes, whichever thread
is waiting on it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath

from coder_eval.common.process import OUTPUT_CAP_BYTES, ExecResult
from coder_eval.models.network import NetworkRecord
from coder_eval.sandbox.environment import Command, Launch, SandboxEnvironment


class Deadline:
    """Seconds left until a fixed moment; `None` limit means no deadline."""

    def __init__(self, limit: float | None, *, start: float | None = None) -> None:
        self.limit = limit
        self._end = None if limit is None else (time.monotonic() if start is None else start) + limit

    def remaining(self) -> float | None:
        return None if self._end is None else max(0.0, self._end - time.monotonic())

    @property
    def expired(self) -> bool:
        left = self.remaining()
        return left is not None and left <= 0

    def cap(self, timeout: float) -> float:
        left = self.remaining()
        return timeout if left is None else min(timeout, left)

    def describe(self) -> str:
        return f"task timed out after {self.limit:g}s" if self.limit is not None else "no deadline"


class Watchdog:
    """Calls `on_expiry` once when the deadline passes; `cancel` disarms it.

    On an event loop it is a `call_later` timer whose callback runs `on_expiry` in a worker
    thread (no thread per unit while nothing expires); without a loop, a daemon timer thread.
    """

    def __init__(
        self, deadline: Deadline, on_expiry: Callable[[], None], loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        left = deadline.remaining()
        self._timer: threading.Timer | None = None
        self._handle: asyncio.TimerHandle | None = None
        if left is None:
            return
        if loop is not None:
            self._handle = loop.call_later(left, lambda: loop.run_in_executor(None, on_expiry))
        else:
            self._timer = threading.Timer(left, on_expiry)
            self._timer.daemon = True
            self._timer.start()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._handle is not None:
            self._handle.cancel()


def _not_started(command: Command) -> ExecResult:
    return ExecResult(
        exit_code=None,
        stdout="",
        stderr=f"not started: the unit's deadline had passed ({command.describe()[:200]})",
        duration_seconds=0.0,
        timed_out=True,
    )


class BoundedEnvironment:
    """A SandboxEnvironment whose commands all end by the unit's deadline; everything else delegates."""

    def __init__(self, inner: SandboxEnvironment, deadline: Deadline) -> None:
        self.inner = inner
        self.deadline = deadline

    @property
    def workspace(self) -> Path:
        return self.inner.workspace

    @property
    def inner_workspace(self) -> PurePosixPath:
        return self.inner.inner_workspace

    @property
    def python(self) -> str:
        return self.inner.python

    def exec(self, command: Command, *, timeout: float, output_limit: int = OUTPUT_CAP_BYTES) -> ExecResult:
        if self.deadline.expired:
            return _not_started(command)
        return self.inner.exec(command, timeout=self.deadline.cap(timeout), output_limit=output_limit)

    def read_file(self, path: PurePosixPath, *, limit: int) -> bytes:
        return self.inner.read_file(path, limit=limit)

    def write_file(self, path: PurePosixPath, data: bytes) -> None:
        self.inner.write_file(path, data)

    def host_path(self, inner: PurePosixPath) -> Path:
        return self.inner.host_path(inner)

    def agent_launch(self, argv: list[str], env: Mapping[str, str]) -> Launch:
        return self.inner.agent_launch(argv, env)

    def path_entries(self) -> list[str]:
        return self.inner.path_entries()

    def add_path_entries(self, entries: list[Path], *, first: bool = False) -> None:
        self.inner.add_path_entries(entries, first=first)

    def add_env(self, values: Mapping[str, str]) -> None:
        self.inner.add_env(values)

    def base_env(self) -> dict[str, str]:
        return self.inner.base_env()

    @property
    def home_dir(self) -> Path:
        return self.inner.home_dir

    def seal(self) -> None:
        self.inner.seal()

    def limit_breach(self) -> str | None:
        return limit_breach(self.inner)

    def limits_in_force(self) -> dict[str, str]:
        return limits_in_force(self.inner)

    def reach(self, url: str) -> str:
        return self.inner.reach(url)

    def share(self, host: Path, name: str) -> PurePosixPath:
        return self.inner.share(host, name)

    def unshare(self, name: str) -> None:
        self.inner.unshare(name)

    def service_socket(self, name: str) -> tuple[Path, PurePosixPath]:
        return self.inner.service_socket(name)

    def kill_all(self) -> None:
        self.inner.kill_all()

    def network_phase(self, phase: str) -> None:
        network_phase(self.inner, phase)

    def network_record(self) -> NetworkRecord | None:
        return network_record(self.inner)

    def finish(self) -> Path | None:
        return self.inner.finish()


def limit_breach(env: SandboxEnvironment) -> str | None:
    """Why `env`'s unit went over a limit, for drivers that enforce any (a plugin's may not say)."""
    check = getattr(env, "limit_breach", None)
    found = check() if callable(check) else None
    return found if isinstance(found, str) else None


def limits_in_force(env: SandboxEnvironment) -> dict[str, str]:
    """Each resource limit that binds `env`'s unit and how (empty where the driver says nothing)."""
    check = getattr(env, "limits_in_force", None)
    found = check() if callable(check) else {}
    return dict(found) if isinstance(found, dict) else {}


def network_phase(env: SandboxEnvironment, phase: str) -> None:
    """Tell `env`'s egress record what the unit does now (drivers without one ignore it)."""
    note = getattr(env, "network_phase", None)
    if callable(note):
        note(phase)


def network_record(env: SandboxEnvironment) -> NetworkRecord | None:
    """`env`'s network policy and egress attempts, where its driver keeps them."""
    read = getattr(env, "network_record", None)
    found = read() if callable(read) else None
    return found if isinstance(found, NetworkRecord) else None
