"""The execution contract: how anything "in the sandbox" runs, whatever isolates it.

Everything the harness runs for a unit goes through one `SandboxEnvironment`: `pre_run` and
`post_run`, every criterion command, uv/npm set-up, and the launch of the agent's CLI (the agent
asks for the command line and environment to start it with). A driver (tempdir, bubblewrap,
docker, a plugin's) implements this protocol in one module; the engine, the criteria and the
agents never learn which one they talk to.

Paths come in two views: `workspace` is the directory as the harness sees it on the host (it
copies templates there and grades files there), `inner_workspace` is the same directory as a
process inside sees it (the agent's cwd, the value of absolute paths it writes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Protocol, runtime_checkable

from coder_eval.common.process import ExecResult

DEFAULT_OUTPUT_LIMIT = 100 * 1024
"""Bytes of stdout (and of stderr) kept per command unless a caller asks otherwise."""


@dataclass(frozen=True)
class Command:
    """One command to run inside: an argv, or a shell script (`sh -c`), never both."""

    argv: Sequence[str] | None = None
    shell: str | None = None
    cwd: PurePosixPath | None = None
    """Working directory inside; relative paths are under the workspace (default: the workspace)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables added to the environment's own (they win)."""
    stdin: bytes | None = None
    keep_background: bool = False
    """Leave processes the command started in the background running (pre_run daemons) until cleanup."""
    cache_dirs: tuple[Path, ...] = ()
    """Host directories a set-up command may write (package caches); isolating drivers bind them for it alone."""

    def __post_init__(self) -> None:
        if (self.argv is None) == (self.shell is None):
            raise ValueError("a Command needs exactly one of argv and shell")

    @classmethod
    def sh(cls, script: str, **kwargs: object) -> Command:
        return cls(shell=script, **kwargs)  # type: ignore[arg-type]

    def describe(self) -> str:
        return self.shell if self.shell is not None else " ".join(self.argv or ())


@dataclass(frozen=True)
class Launch:
    """How to start an agent's CLI inside the environment."""

    argv: list[str]
    """Command line that starts the CLI inside (a wrapper prefix for namespaces or containers)."""
    env: dict[str, str]
    """The whole environment of the launched process (nothing else is inherited)."""
    cwd: Path
    """Host-side directory to start the launcher in."""


@runtime_checkable
class SandboxEnvironment(Protocol):
    """One unit's execution environment, created by a driver and finished once."""

    @property
    def workspace(self) -> Path:
        """The workspace as the harness sees it (host path)."""
        ...

    @property
    def inner_workspace(self) -> PurePosixPath:
        """The workspace as processes inside see it."""
        ...

    def exec(self, command: Command, *, timeout: float, output_limit: int = DEFAULT_OUTPUT_LIMIT) -> ExecResult:
        """Run `command` inside and wait for it (at most `timeout` seconds; then it is killed)."""
        ...

    def read_file(self, path: PurePosixPath, *, limit: int) -> bytes:
        """Up to `limit` bytes of a file, by its path inside (relative paths are under the workspace)."""
        ...

    def write_file(self, path: PurePosixPath, data: bytes) -> None:
        """Create or replace a file, by its path inside."""
        ...

    def host_path(self, inner: PurePosixPath) -> Path:
        """The host path of a path inside the workspace."""
        ...

    def agent_launch(self, argv: list[str], env: Mapping[str, str]) -> Launch:
        """How to start an agent CLI (`argv` as found on the host) with exactly `env` inside."""
        ...

    def path_entries(self) -> list[str]:
        """Directories (as seen inside) to put first on PATH: shims, mock dirs, the venv, node bins."""
        ...

    def add_path_entries(self, entries: list[Path], *, first: bool = False) -> None:
        """Put host directories inside the workspace on PATH (after set-up, or first with `first`)."""
        ...

    @property
    def python(self) -> str:
        """A Python 3 interpreter usable inside (record_cli shims run on it)."""
        ...

    def add_env(self, values: Mapping[str, str]) -> None:
        """Variables every later command and the agent get (e.g. VIRTUAL_ENV of the sandbox venv)."""
        ...

    def base_env(self) -> dict[str, str]:
        """The environment every command and the agent start from (credentials already removed)."""
        ...

    @property
    def home_dir(self) -> Path:
        """A private writable directory outside the workspace, at the same path inside: HOME and TMPDIR live there."""
        ...

    def seal(self) -> None:
        """Set-up is over: from now on the network policy holds (package installs came before)."""
        ...

    def reach(self, url: str) -> str:
        """`url` (a loopback address of the harness, e.g. the gateway) as processes inside can reach it."""
        ...

    def share(self, host: Path, name: str) -> PurePosixPath:
        """Make a host directory readable by later commands at the returned inner path (read-only where possible)."""
        ...

    def unshare(self, name: str) -> None:
        """Withdraw what `share(..., name)` made visible."""
        ...

    def service_socket(self, name: str) -> tuple[Path, PurePosixPath]:
        """Where the harness binds a Unix socket (host path) that processes inside reach at the inner path.

        The socket lives in a directory of the harness; drivers that isolate show it read-only, so the
        unit can connect but cannot remove or replace the socket (see the record_cli recorder).
        """
        ...

    def kill_all(self) -> None:
        """End every process started inside so far (safe from any thread, idempotent)."""
        ...

    def finish(self) -> Path | None:
        """Kill what is left, then preserve or drop the workspace; returns where it now lives."""
        ...


__all__ = ["DEFAULT_OUTPUT_LIMIT", "Command", "ExecResult", "Launch", "SandboxEnvironment"]
