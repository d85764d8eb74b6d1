"""The `bubblewrap` driver: a unit runs in its own mount, PID, IPC, UTS (and network) namespaces.

Inside, a unit sees its workspace read-write, its private HOME, and read-only only what programs
need: the system directories (with credential files masked), the harness's Python and its venv
(the agent CLIs live there) and the tools the unit declares. It does not see the operator's home,
the task suite, the run directory or the harness's temp directory, nor any process of the harness
or of another unit. Under `network: none` (the default) the only way out is the unit's gateway
route, through the holder's relay and the unit's Unix socket bridge.

bwrap is always started with an empty environment: inside a PID namespace its own
`/proc/1/environ` is readable, so no value worth hiding may pass through it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from coder_eval.common.process import OUTPUT_CAP_BYTES, ExecResult, pid_exits_within
from coder_eval.common.reaper import children_of, own_descendants, subtree
from coder_eval.sandbox.drivers import PreservationMode, SandboxRequest, register_driver
from coder_eval.sandbox.environment import Command, Launch
from coder_eval.sandbox.isolated import SHARE_INNER, SOCKET_INNER, IsolatedEnvironment
from coder_eval.sandbox.tempdir import Finisher, HostEnvironment, TempdirDriver
from coder_eval.sandbox.templates import SetupError
from coder_eval.sandbox.unit_limits import UnitLimits

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
MASKED_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers")
MASKED_DIRS = ("/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d", "/etc/docker")


def bwrap_binary() -> str | None:
    return shutil.which("bwrap")


@lru_cache(maxsize=1)
def bwrap_works() -> bool:
    """Whether bubblewrap can create namespaces here (installed, and user namespaces or setuid allow it)."""
    binary = bwrap_binary()
    if binary is None:
        return False
    argv = [binary, "--unshare-all", "--die-with-parent", *_system_mounts(), "--", "/bin/true"]
    try:
        return subprocess.run(argv, env={}, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        reap_namespace_zombies()


def _system_mounts() -> list[str]:
    args = ["--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev"]
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    args += ["--ro-bind", "/etc", "/etc"]
    args += [a for f in MASKED_FILES if os.path.isfile(f) for a in ("--ro-bind", "/dev/null", f)]
    args += [a for d in MASKED_DIRS if os.path.isdir(d) for a in ("--tmpfs", d)]
    return args


def python_dirs() -> list[str]:
    """The harness's interpreter and venv: record_cli shims, set-up tools and agent CLIs run from there."""
    exe = Path(os.path.realpath(sys.executable))
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(exe.parent.parent)}
    return sorted(d for d in dirs if d and not any(d == s or d.startswith(s + "/") for s in SYSTEM_DIRS))


class BubblewrapEnvironment(IsolatedEnvironment):
    """One unit's namespaces: set-up commands in throwaway ones, the rest in the holder's."""

    def __init__(self, workspace: Path, request: SandboxRequest, finisher: Finisher | None) -> None:
        super().__init__(workspace, request, finisher)
        self.isolated_net = self.relay_gateway = request.config.network == "none"
        self._binary = bwrap_binary() or "bwrap"
        # `python`/`python3` as on the host, where they often come from shims the sandbox cannot see
        self.bin_dir = self.unit_dir / "bin"
        self.bin_dir.mkdir()
        for name in ("python", "python3"):
            (self.bin_dir / name).symlink_to(self.python)
        self._userns: bool | None = None
        self._inner_pid = 0
        self._pid_ns = ""
        self._keep: set[int] = set()
        self._relay: subprocess.Popen[bytes] | None = None
        self.limits = UnitLimits(request.config.limits)

    @property
    def python(self) -> str:
        return os.path.realpath(sys.executable)

    def fallback_path_entries(self) -> list[str]:
        # after the unit's own entries (a sandbox venv's python wins), before the host's PATH
        return [str(self.bin_dir)]

    def _mounts(self, extra_rw: tuple[Path, ...] = ()) -> list[str]:
        args = _system_mounts()
        ro = [*python_dirs(), *(str(t) for t in self.tools)]
        for path in ro:
            if os.path.exists(path):
                args += ["--ro-bind", path, path]
        for rw in [self.workspace, self.home_dir, *extra_rw]:
            if rw.exists():
                args += ["--bind", str(rw), str(rw)]
        args += ["--ro-bind", str(self.share_dir), str(SHARE_INNER), "--ro-bind", str(self.bin_dir), str(self.bin_dir)]
        return args

    def _bwrap(self, *, extra_rw: tuple[Path, ...] = (), net: bool, cwd: Path | None = None) -> list[str]:
        flags = ["--unshare-all", "--die-with-parent", "--new-session"]
        if net:
            flags.append("--share-net")
        return [self._binary, *flags, *self._mounts(extra_rw), "--chdir", str(cwd or self.workspace)]

    def start_holder(self) -> subprocess.Popen[bytes]:
        # bwrap's own init is PID 1 (it reaps orphans); the holder is a shell waiting for its stdin
        # to close. The gateway relay starts inside only when an agent needs it (`reach`), so a
        # unit without an agent pays for no interpreter start.
        read_end, write_end = os.pipe()
        argv = self._bwrap(net=not self.isolated_net)
        argv += ["--bind", str(self.bridge.path), SOCKET_INNER, "--info-fd", str(write_end)]
        argv += ["--", "/bin/sh", "-c", "echo ready; read _ignored"]
        setpriv = shutil.which("setpriv")
        if setpriv is not None:
            # bwrap's outer process waits for its child without a death signal of its own; if the
            # harness dies while it starts, it would wait forever. (The signal follows the thread
            # that started it: asyncio's worker threads live as long as the run.)
            argv = [setpriv, "--pdeathsig", "KILL", *argv]
        argv = [*self.limits.prefix(), *argv]
        try:
            proc = self._start_holder(argv, env={}, pass_fds=(write_end,))
        finally:
            os.close(write_end)
        with os.fdopen(read_end, "rb") as info:
            child = json.loads(info.read().decode() or "{}").get("child-pid")
        own_ns = os.readlink("/proc/self/ns/pid")
        pid_ns = os.readlink(f"/proc/{child}/ns/pid") if isinstance(child, int) else own_ns
        if pid_ns == own_ns:  # never act on the host's namespace as if it were the unit's
            proc.kill()
            proc.wait()
            raise SetupError("bubblewrap did not report the sandbox's process (no PID namespace to hold)")
        self._inner_pid, self._pid_ns = child, pid_ns
        self._keep = {self._inner_pid, *_children(self._inner_pid)}  # bwrap's init and the waiting shell
        return proc

    def reach(self, url: str) -> str:
        inside = super().reach(url)
        if inside != url and self._relay is None:
            self.ensure_holder()
            argv = [*self._enter(self.workspace), *self.holder_argv(self.python)]
            self._relay = self._start_holder(argv, env={})
        return inside

    def _enter(self, cwd: Path) -> list[str]:
        assert self.holder is not None
        pid = self._inner_pid
        flags = ["-m", "-u", "-i", "-n", "-p"]
        if self._userns is None:
            self._userns = os.readlink(f"/proc/{pid}/ns/user") != os.readlink("/proc/self/ns/user")
        if self._userns:
            flags = ["-U", "--preserve-credentials", *flags]
        # -r: the namespace's root; the working directory is set by a shell once inside
        return ["nsenter", "-t", str(pid), *flags, "-r", "--", "/bin/sh", "-c", 'cd "$0" && exec "$@"', str(cwd)]

    def exec(self, command: Command, *, timeout: float, output_limit: int = OUTPUT_CAP_BYTES) -> ExecResult:
        cwd = self.workspace if command.cwd is None else self.host_path(command.cwd)
        body = list(command.argv) if command.argv is not None else ["/bin/sh", "-c", command.shell or ""]
        env = {**self.base_env(), **command.env}
        if not self.sealed:  # set-up: a throwaway namespace, network as the host's
            argv = [*self._bwrap(extra_rw=command.cache_dirs, net=True, cwd=cwd), "--", *body]
        else:
            self.ensure_holder()
            argv = [*self._enter(cwd), *body]
        try:
            return self.run_tracked(
                command,
                argv=[*self.limits.prefix(), *argv],
                cwd=self.workspace,
                env=env,
                timeout=timeout,
                output_limit=output_limit,
            )
        finally:
            if not self.sealed:
                reap_namespace_zombies()

    def agent_launch(self, argv: list[str], env: Mapping[str, str]) -> Launch:
        self.ensure_holder()
        launch = [*self.limits.prefix(), *self._enter(self.workspace), *argv]
        return Launch(argv=launch, env=dict(env), cwd=self.workspace)

    def kill_all(self) -> None:
        super().kill_all()
        if self.holder is None or self.holder.poll() is not None:
            return
        if not self._pid_ns or self._pid_ns == os.readlink("/proc/self/ns/pid"):
            return  # only ever a unit's own namespace
        keep = set(self._keep)
        if self._relay is not None:
            keep |= set(_descendants(self._relay.pid))
        for pid in _in_namespace(self._pid_ns, self._inner_pid):
            if pid not in keep:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def end_processes(self) -> None:
        # the holder's exit ends the namespace, and the kernel kills everything in it: no scan needed
        HostEnvironment.kill_all(self)

    def finish(self) -> Path | None:
        try:
            return super().finish()
        finally:
            self.limits.close()

    def stop_holder(self) -> None:
        if self._relay is not None:
            relay, self._relay = self._relay, None
            if relay.stdin is not None:
                relay.stdin.close()
            relay.kill()
            relay.wait()
            for stream in (relay.stdout, relay.stderr):
                if stream is not None:
                    stream.close()
        super().stop_holder()
        if self._inner_pid:
            pid, self._inner_pid = self._inner_pid, 0
            _reap_init(pid)
        reap_namespace_zombies()


def reap_namespace_zombies() -> None:
    """Collect exited processes of unit namespaces re-parented to the harness: inits of throwaway set-up
    namespaces and of the probe, and processes entered with nsenter whose nsenter was killed.

    Only zombies that lived in another PID namespace are taken: no Popen of the harness waits for
    those (its children there are bwrap's and nsenter's outer processes). A namespace whose init is
    exiting waits until they are collected.
    """
    me = os.getpid()
    for child in children_of(me):
        try:
            status = Path(f"/proc/{child}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        zombie = fields.get("State", "").strip().startswith("Z")
        if zombie and len(fields.get("NSpid", "").split()) > 1 and fields.get("PPid", "").strip() == str(me):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, os.WNOHANG)


def _reap_init(pid: int) -> None:
    """Collect the namespace's init once bwrap's outer process is gone.

    The outer process may exit first; the harness is a subreaper, so the init is then re-parented
    to it and, unreaped, would stay a zombie for the rest of the run (one per unit).
    """
    deadline = time.monotonic() + 5
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return  # not ours: bwrap reaped it, or init (not a subreaper) adopted it
        if done:
            return
        reap_namespace_zombies()  # the init waits for its namespace's zombies that were re-parented to us
        if time.monotonic() > deadline:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
        pid_exits_within(pid, 0.005)  # returns as soon as the init exits


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _descendants(pid: int) -> list[int]:
    out, pending = [], [pid]
    while pending:
        kids = _children(pending.pop())
        out += kids
        pending += kids
    return out


def _in_namespace(pid_ns: str, init: int) -> list[int]:
    """Host pids of every process in the PID namespace `pid_ns` (a /proc/<pid>/ns/pid link).

    They are all below its `init` (orphans inside are re-parented to it, never to a subreaper
    outside) or below the harness (commands and agents entering with nsenter), so only those two
    subtrees are read; where the kernel cannot list children, every process is checked.
    """
    inside = subtree(init)
    ours = own_descendants()
    if inside is None or ours is None:
        candidates = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    else:
        candidates = sorted(inside | ours)
    found = []
    for pid in candidates:
        try:
            if os.readlink(f"/proc/{pid}/ns/pid") == pid_ns:
                found.append(pid)
        except OSError:
            continue
    return found


@register_driver("bubblewrap")
class BubblewrapDriver(TempdirDriver):
    """Namespaces per unit with bubblewrap: no daemon, no root needed where user namespaces are allowed."""

    name = "bubblewrap"
    default_preservation = PreservationMode.MOVE_ON_WRITE

    def create(self, request: SandboxRequest) -> BubblewrapEnvironment:
        if not bwrap_works():
            raise SetupError("bubblewrap (bwrap) is not installed or cannot create namespaces on this machine")
        workspace = self.new_workspace(request)
        return BubblewrapEnvironment(workspace, request, Finisher(request.artifacts_dir, request.mode, request.notes))
