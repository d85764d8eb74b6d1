"""Run an agent CLI that prints one JSON event per line, as the leader of its own process group.

Shared by the CLI-driven kinds (codex, opencode, and the npm CLIs that follow): the CLI gets
exactly the environment it is given (nothing of the harness's own), starts through the sandbox's
launch line, and is killed with its whole group (plus any descendant that left the group) on a
timeout, a cap, a stop or `kill_sync`. The caller reads parsed events with `events()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder_eval.common.process_tree import kill_tree, send
from coder_eval.sandbox.environment import Launch

_LINE_LIMIT = 64 * 1024 * 1024
"""Largest single event line accepted (a tool result can be big)."""


@dataclass
class JsonlProcess:
    """One run of an agent CLI; `events()` yields each JSON object it prints on stdout."""

    launch: Launch
    stderr_tail: deque[str] = field(default_factory=lambda: deque(maxlen=40))
    noise: deque[str] = field(default_factory=lambda: deque(maxlen=20))
    """Stdout lines that were not JSON objects (banners, warnings), kept for error messages."""
    _proc: asyncio.subprocess.Process | None = None
    _stderr_task: asyncio.Task[None] | None = None
    killed: bool = False

    async def start(self) -> None:
        self._proc = await asyncio.create_subprocess_exec(
            *self.launch.argv,
            cwd=str(self.launch.cwd) if self.launch.cwd is not None else None,
            env=self.launch.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own group: one signal ends it and what it spawned
            limit=_LINE_LIMIT,
        )
        self._stderr_task = asyncio.ensure_future(self._drain_stderr())

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """Parsed stdout events until the CLI closes its stdout."""
        assert self._proc is not None and self._proc.stdout is not None
        while True:
            raw = await self._proc.stdout.readline()
            if not raw:
                return
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                self.noise.append(line[:500])
                continue
            if isinstance(event, dict):
                yield event
            else:
                self.noise.append(line[:500])

    async def wait(self, timeout: float = 30.0) -> int:
        """The exit code (killing the group if it lingers after closing stdout)."""
        assert self._proc is not None
        try:
            code = await asyncio.wait_for(self._proc.wait(), timeout)
        except TimeoutError:
            self.kill()
            code = await self._proc.wait()
        # Whatever the CLI left running in its group (a background command) ends with it.
        send(self._proc.pid, signal.SIGKILL, group=True)
        if self._stderr_task is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self._stderr_task, 2.0)
        return code

    def kill(self) -> None:
        """SIGKILL the CLI's group and every descendant; safe from any thread, idempotent."""
        proc = self._proc
        if proc is None or (proc.returncode is not None and self.killed):
            return
        self.killed = True
        kill_tree(proc.pid, with_descendants=proc.returncode is None)

    async def close(self) -> None:
        """Kill if still running and reap, so no process or pipe outlives the turn."""
        if self._proc is None:
            return
        if self._proc.returncode is None:
            self.kill()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self._proc.wait(), 5.0)
        if self._stderr_task is not None and not self._stderr_task.done():
            self._stderr_task.cancel()
            with contextlib.suppress(BaseException):
                await self._stderr_task

    def stderr_text(self, limit: int = 1500) -> str:
        return " | ".join([*self.stderr_tail, *self.noise])[-limit:]

    async def _drain_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        while True:
            raw = await self._proc.stderr.readline()
            if not raw:
                return
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                self.stderr_tail.append(line[:500])


def private_dir(prefix: str, sandbox_home: Path | None = None) -> str:
    """A private directory for an agent's HOME/config, outside TMPDIR (Codex's sandbox refuses a home under it).

    Inside the sandbox's own private directory when given (so the agent sees it in isolating
    sandboxes; TMPDIR is a subdirectory of it), else under the user's cache directory.
    """
    import tempfile

    if sandbox_home is not None:
        return tempfile.mkdtemp(prefix=prefix, dir=sandbox_home)
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "coder-eval" / "agent-homes"
    root.mkdir(parents=True, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix, dir=root)
