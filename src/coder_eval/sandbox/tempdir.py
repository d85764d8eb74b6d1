"""The `tempdir` driver: a plain directory on the host, and the host environment that runs in it.

A working directory, not a security boundary: commands and the agent run as the harness's user
with its file system in view. What it does guarantee: each command leads its own process group
(killed on timeout, and every group the unit started is killed when it finishes), and commands
start from an allowlisted environment (see `env_allowlist.py`) with a private HOME and TMPDIR.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from coder_eval.common.bounded_copy import CopyBudget, move_tree
from coder_eval.common.process import OUTPUT_CAP_BYTES, ExecResult, kill_group, run_process
from coder_eval.common.secrets import scrub_env
from coder_eval.models.network import NetworkRecord
from coder_eval.sandbox.drivers import PreservationMode, SandboxRequest, register_driver
from coder_eval.sandbox.env_allowlist import allowlisted_env, withhold_credentials
from coder_eval.sandbox.environment import Command, Launch
from coder_eval.sandbox.home_pool import give_back, take_home


class HostEnvironment:
    """A SandboxEnvironment whose inside is the host: paths inside and outside are the same."""

    shared_read_only = False
    """Whether the unit cannot write `SandboxRequest.shared` whatever it does (a read-only mount); on the
    host it runs as the harness's user, so a change is looked for after the unit instead."""

    def __init__(
        self,
        workspace: Path,
        *,
        base_env: Mapping[str, str] | None = None,
        finish: Finisher | None = None,
        home: Path | None = None,
        passthrough: list[str] | None = None,
        recycle_home: Callable[[Path], None] | None = None,
        network: NetworkRecord | None = None,
    ) -> None:
        self._workspace = workspace.resolve()
        self._home = (home or Path(tempfile.mkdtemp(prefix="coder-eval-home-"))).resolve()
        (self._home / "tmp").mkdir(parents=True, exist_ok=True)
        self._recycle_home = recycle_home
        if base_env is None:
            self._base = allowlisted_env(passthrough=passthrough or (), home=str(self._home))
        else:  # a trusted caller's own environment (re-grading reuses the original one)
            self._base = scrub_env(withhold_credentials(base_env)[0])
        self._path: list[Path] = []
        self._groups: set[int] = set()
        self._finisher = finish
        self._extra: dict[str, str] = {}
        self._network = network
        self._sockets: Path | None = None

    @property
    def workspace(self) -> Path:
        return self._workspace

    @property
    def inner_workspace(self) -> PurePosixPath:
        return PurePosixPath(self._workspace.as_posix())

    @property
    def python(self) -> str:
        from coder_eval.sandbox.environments import base_interpreter

        return base_interpreter()

    def host_path(self, inner: PurePosixPath) -> Path:
        return self._workspace / inner if not inner.is_absolute() else Path(inner)

    def path_entries(self) -> list[str]:
        return [str(p) for p in self._path]

    def fallback_path_entries(self) -> list[str]:
        """Directories between the unit's own PATH entries and the host's (none on the host itself)."""
        return []

    def add_path_entries(self, entries: list[Path], *, first: bool = False) -> None:
        fresh = [e for e in entries if e not in self._path]
        self._path = fresh + self._path if first else self._path + fresh

    def base_env(self) -> dict[str, str]:
        env = dict(self._base)
        entries = [*self.path_entries(), *self.fallback_path_entries()]
        if entries:
            env["PATH"] = os.pathsep.join([*entries, env.get("PATH", "")])
        env.update(self._extra)
        return env

    def add_env(self, values: Mapping[str, str]) -> None:
        self._extra.update(values)

    def exec(self, command: Command, *, timeout: float, output_limit: int = OUTPUT_CAP_BYTES) -> ExecResult:
        cwd = self._workspace if command.cwd is None else self.host_path(command.cwd)
        return self.run_tracked(
            command,
            argv=command.argv,
            shell=command.shell,
            cwd=cwd,
            env={**self.base_env(), **command.env},
            timeout=timeout,
            output_limit=output_limit,
        )

    def read_file(self, path: PurePosixPath, *, limit: int) -> bytes:
        with open(self.host_path(path), "rb") as fh:
            return fh.read(limit)

    def write_file(self, path: PurePosixPath, data: bytes) -> None:
        target = self.host_path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        target.write_bytes(data)

    def agent_launch(self, argv: list[str], env: Mapping[str, str]) -> Launch:
        return Launch(argv=list(argv), env=dict(env), cwd=self._workspace)

    @property
    def home_dir(self) -> Path:
        return self._home

    def seal(self) -> None:
        """Nothing to close: the host's network stays the host's."""

    def limits_in_force(self) -> dict[str, str]:
        """Nothing but the deadline binds in a host directory."""
        return {}

    def limit_breach(self) -> str | None:
        """Never: a host directory enforces no limit but the deadline."""
        return None

    def reach(self, url: str) -> str:
        return url

    def network_phase(self, phase: str) -> None:
        """Nothing to note: no proxy sees a host directory's traffic."""

    def network_record(self) -> NetworkRecord | None:
        """The host's network, not enforced (None for an adopted workspace, which runs no unit)."""
        return self._network

    def share(self, host: Path, name: str) -> PurePosixPath:
        return PurePosixPath(host.as_posix())

    def unshare(self, name: str) -> None:
        """Nothing to withdraw: shared directories are the host's own."""

    def service_socket(self, name: str) -> tuple[Path, PurePosixPath]:
        """A socket in a private directory under the system temp dir (short: socket paths hold 108 bytes).

        Not out of the unit's reach here: it runs as the harness's user.
        """
        if self._sockets is None:
            self._sockets = Path(tempfile.mkdtemp(prefix="ce-svc-"))
        path = self._sockets / f"{_socket_name(name)}.sock"
        return path, PurePosixPath(path.as_posix())

    def run_tracked(self, command: Command, **kwargs: Any) -> ExecResult:
        """run_process, remembering the command's process group only while it may still have members.

        A finished group whose id stays on record could be killed later after the kernel reused
        the id for an unrelated process group (pids wrap quickly on a busy machine), so a command
        whose leftovers were killed is forgotten at once, and kill_all forgets what it killed.
        """
        fresh: set[int] = set()
        try:
            return run_process(keep_background=command.keep_background, stdin=command.stdin, started=fresh, **kwargs)
        finally:
            if command.keep_background:
                self._groups |= fresh

    def kill_all(self) -> None:
        groups, self._groups = set(self._groups), set()
        for group in groups:
            kill_group(group)

    def finish(self) -> Path | None:
        self.kill_all()
        if self._sockets is not None:
            shutil.rmtree(self._sockets, ignore_errors=True)
        if self._recycle_home is not None:
            self._recycle_home(self._home)
        else:
            shutil.rmtree(self._home, ignore_errors=True)
        return self._finisher(self._workspace) if self._finisher is not None else self._workspace


def _socket_name(name: str) -> str:
    if not name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"a service socket's name is a plain word, not {name!r}")
    return name


class Finisher:
    """Preserve or drop a temporary workspace according to the preservation mode.

    Preserving is a rename when the workspace and the artifacts share a file system; across file
    systems it is a bounded copy that keeps sparse files sparse (common/bounded_copy.py), and a
    note for each file it left out goes to `notes` (the request's, which the unit's task.log shows).
    """

    def __init__(self, artifacts_dir: Path, mode: PreservationMode, notes: list[str] | None = None) -> None:
        self.artifacts_dir, self.mode = artifacts_dir, mode
        self.notes = notes if notes is not None else []

    def __call__(self, workspace: Path) -> Path | None:
        if self.mode is PreservationMode.DIRECT_WRITE:
            return workspace
        if self.mode is PreservationMode.NONE:
            shutil.rmtree(workspace, ignore_errors=True)
            return None
        if self.artifacts_dir.exists():
            shutil.rmtree(self.artifacts_dir)
        self.artifacts_dir.parent.mkdir(parents=True, exist_ok=True)
        budget = CopyBudget()
        move_tree(workspace, self.artifacts_dir, budget)
        self.notes.extend(f"left out of the preserved artifacts: {note}" for note in budget.notes)
        return self.artifacts_dir


def tempdir_network(request: SandboxRequest) -> NetworkRecord:
    from coder_eval.sandbox.egress_policy import resolve_mode

    held = resolve_mode(request.config, "tempdir")
    return NetworkRecord(mode=held.mode, enforced=held.enforced, note=held.note)


@register_driver("tempdir")
class TempdirDriver:
    """A plain directory on the host. A working directory, not a security boundary."""

    name = "tempdir"
    default_preservation = PreservationMode.MOVE_ON_WRITE
    shows_shared_dirs = True
    """The host's own paths are the unit's."""

    def create(self, request: SandboxRequest) -> HostEnvironment:
        workspace = self.new_workspace(request)
        finisher = Finisher(request.artifacts_dir, request.mode, request.notes)
        scratch = request.scratch
        home = take_home(scratch)
        return HostEnvironment(
            workspace,
            base_env=request.base_env,
            finish=finisher,
            home=home,
            passthrough=request.config.passthrough(),
            recycle_home=lambda used: give_back(used, scratch),
            network=tempdir_network(request),
        )

    @staticmethod
    def new_workspace(request: SandboxRequest) -> Path:
        """An empty workspace: the artifacts directory itself (DIRECT_WRITE) or a scratch directory."""
        if request.scratch is not None:
            request.scratch.mkdir(parents=True, exist_ok=True)
        if request.mode is PreservationMode.DIRECT_WRITE:
            if request.artifacts_dir.exists():
                shutil.rmtree(request.artifacts_dir)
            request.artifacts_dir.mkdir(parents=True)
            workspace = request.artifacts_dir
        else:
            workspace = Path(tempfile.mkdtemp(prefix="sbx-", dir=request.scratch))
            workspace.chmod(0o755)
        return workspace

    def adopt(self, workspace: Path, request: SandboxRequest) -> HostEnvironment:
        return HostEnvironment(workspace, base_env=request.base_env, passthrough=request.config.passthrough())
