"""The `bubblewrap` driver: a unit runs in its own user, mount, PID, IPC, UTS (and network) namespaces.

Inside, a unit sees its workspace read-write, its private HOME and `/tmp`, and read-only only what
programs need: the system directories (with credential files masked), the harness's Python and its
venv (the agent CLIs live there) and the tools the unit declares, on a read-only root. It does not
see the operator's home, the task suite, the run directory or the harness's temp directory, nor any
process of the harness or of another unit. Every process in it runs as uid 1000 with no
capabilities (bwrap_userns.py says how), so the mounts cannot be changed from inside. Under
`network: none` (the default) the only way out is the unit's gateway route, through the holder's
relay and the unit's Unix socket bridge.

bwrap is always started with an empty environment: inside a PID namespace its own
`/proc/1/environ` is readable, so no value worth hiding may pass through it. Every program the
harness starts here is named by an absolute path found at start-up (common/host_tools.py), and
the host side of every command line gets no variable that changes how a program loads.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from coder_eval.common.host_tools import HostToolMissingError, find_host_tool, host_tool, split_loader_env
from coder_eval.common.process import OUTPUT_CAP_BYTES, ExecResult
from coder_eval.sandbox.bwrap_mounts import parent_dirs, python_dirs, read_only_root, system_mounts, under_system
from coder_eval.sandbox.bwrap_procs import children, descendants, in_namespace, reap_init, reap_namespace_zombies
from coder_eval.sandbox.bwrap_userns import read_info, set_up_flags, userns_for
from coder_eval.sandbox.drivers import SandboxRequest
from coder_eval.sandbox.environment import Command, Launch
from coder_eval.sandbox.isolated import SHARE_INNER, SOCKET_INNER, SOCKETS_INNER, IsolatedEnvironment
from coder_eval.sandbox.tempdir import Finisher, HostEnvironment
from coder_eval.sandbox.templates import SetupError
from coder_eval.sandbox.unit_limits import UnitLimits
from coder_eval.sandbox.unit_user import unit_user

ENTRY_SCRIPT = 'cd "$0" && exec "$@"'


def bwrap_binary() -> str | None:
    return find_host_tool("bwrap")


@lru_cache(maxsize=1)
def bwrap_works() -> bool:
    """Whether bubblewrap can create the unit's namespaces here (installed, user namespaces allowed)."""
    binary = bwrap_binary()
    if binary is None:
        return False
    argv = [
        binary,
        "--unshare-all",
        *set_up_flags(unit_user()),
        "--die-with-parent",
        *system_mounts(),
        "--",
        "/bin/true",
    ]
    try:
        return subprocess.run(argv, env={}, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        reap_namespace_zombies()


def bwrap_diagnosis() -> str:
    """Why bubblewrap cannot isolate units here, and what to change (one sentence)."""
    if bwrap_binary() is None:
        return "bwrap is not installed (apt-get install bubblewrap, dnf install bubblewrap)"
    knobs = (
        ("/proc/sys/kernel/unprivileged_userns_clone", "0", "sysctl -w kernel.unprivileged_userns_clone=1"),
        ("/proc/sys/user/max_user_namespaces", "0", "sysctl -w user.max_user_namespaces=15000"),
        (
            "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
            "1",
            "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile that allows bwrap "
            "to create user namespaces",
        ),
    )
    for path, off, fix in knobs:
        with contextlib.suppress(OSError):
            if Path(path).read_text().strip() == off:
                return f"user namespaces are disabled ({path} is {off}); to allow them: {fix}"
    return "bwrap cannot create namespaces here (inside a container without user namespaces? try --driver docker)"


def inside_tool(name: str) -> str:
    """A host program run inside a unit: its real path, which must lie in a directory the unit sees read-only."""
    try:
        path = host_tool(name)
    except HostToolMissingError as exc:
        raise SetupError(str(exc)) from None
    if not under_system(path):
        raise SetupError(f"{name} is installed at {path}, outside the system directories a sandbox binds read-only")
    return path


def loader_prefix(loader: Mapping[str, str]) -> list[str]:
    """`env NAME=VALUE ...` for the loader variables a command asked for, applied only once inside."""
    if not loader:
        return []
    return [inside_tool("env"), *(f"{k}={v}" for k, v in sorted(loader.items())), "--"]


class BubblewrapEnvironment(IsolatedEnvironment):
    """One unit's namespaces: set-up commands in throwaway ones, the rest in the holder's."""

    def __init__(
        self, workspace: Path, request: SandboxRequest, finisher: Finisher | None, *, existing: bool = False
    ) -> None:
        super().__init__(workspace, request, finisher, existing=existing)
        self.hold_network("bubblewrap")
        self.relay_gateway = self.isolated_net
        self._binary = bwrap_binary() or "bwrap"
        # `python`/`python3` as on the host, where they often come from shims the sandbox cannot see
        self.bin_dir = self.unit_dir / "bin"
        self.bin_dir.mkdir()
        for name in ("python", "python3"):
            (self.bin_dir / name).symlink_to(self.python)
        from coder_eval.sandbox.environments import link_uv

        link_uv(self.bin_dir)  # uv for the unit, though the harness's venv is never on its PATH
        self.userns = userns_for(self.unit_user)
        self._inner_pid = 0
        self._pid_ns = ""
        self._keep: set[int] = set()
        self._relay: subprocess.Popen[bytes] | None = None
        self.limits = UnitLimits(request.config.limits, defaults=request.runs_agent)

    @property
    def python(self) -> str:
        from coder_eval.sandbox.environments import base_interpreter

        return base_interpreter()

    def limits_in_force(self) -> dict[str, str]:
        found = self.limits.enforced()
        tmp = self.config.limits.effective("tmp_size_mb")
        if tmp:
            found["tmp_size_mb"] = f"{tmp:g} (tmpfs size)"
        return found

    def fallback_path_entries(self) -> list[str]:
        # after the unit's own entries (a sandbox venv's python wins), before the host's PATH
        return [str(self.bin_dir)]

    def _mounts(self, extra_rw: tuple[Path, ...] = ()) -> list[str]:
        shown = (*python_dirs(), *_uv_dir(), *(str(t) for t in self.tools), *(str(d) for d in self.request.shared))
        ro = [p for p in shown if os.path.exists(p)]
        rw = [str(p) for p in (self.workspace, self.home_dir, *extra_rw) if p.exists()]
        inner = [str(SHARE_INNER), SOCKET_INNER, str(SOCKETS_INNER), str(self.bin_dir)]
        args = [*system_mounts(_as_int(self.config.limits.effective("tmp_size_mb"))), *parent_dirs([*ro, *rw, *inner])]
        for path in ro:
            args += ["--ro-bind", path, path]
        for path in rw:
            args += ["--bind", path, path]
        args += ["--ro-bind", str(self.share_dir), str(SHARE_INNER), "--ro-bind", str(self.bin_dir), str(self.bin_dir)]
        args += ["--ro-bind", str(self.socket_dir), str(SOCKETS_INNER)]  # harness services (record_cli, egress proxy)
        return args

    def _bwrap(self, *, extra_rw: tuple[Path, ...] = (), net: bool, cwd: Path | None = None) -> list[str]:
        flags = ["--unshare-all", "--die-with-parent", "--new-session"]
        if net:
            flags.append("--share-net")
        return [self._binary, *flags, *self._mounts(extra_rw), "--chdir", self._inner_cwd(cwd or self.workspace)]

    def _inner_cwd(self, cwd: Path) -> str:
        """Where a command that starts in `cwd` (a host path) starts inside: the same path here."""
        return str(cwd)

    def start_holder(self) -> subprocess.Popen[bytes]:
        # bwrap's own init is PID 1 (it reaps orphans); the holder is a shell waiting for its stdin
        # to close. The gateway relay starts inside only when an agent needs it (`reach`), so a
        # unit without an agent pays for no interpreter start.
        info_r, info_w = os.pipe()
        block_r, block_w = os.pipe() if self.userns.needs_block_fd else (None, None)
        argv = self._bwrap(net=not self.isolated_net)
        argv[1:1] = self.userns.bwrap_flags(block_r)
        argv += ["--bind", str(self.bridge.path), SOCKET_INNER, *read_only_root(), "--info-fd", str(info_w)]
        argv += ["--", *self.userns.holder_prefix(), inside_tool("sh"), "-c", "echo ready; read _ignored"]
        setpriv = find_host_tool("setpriv")
        if setpriv is not None:
            # bwrap's outer process waits for its child without a death signal of its own; if the
            # harness dies while it starts, it would wait forever. (The signal follows the thread
            # that started it: asyncio's worker threads live as long as the run.)
            argv = [setpriv, "--pdeathsig", "KILL", *argv]
        argv = [*self.limits.prefix(), *argv]
        fds = (info_w,) if block_r is None else (info_w, block_r)
        try:
            proc = self._spawn_holder(argv, env={}, pass_fds=fds)
        finally:
            for fd in fds:
                os.close(fd)
        try:
            with os.fdopen(info_r, "rb") as info:
                child = read_info(info).get("child-pid")
            self._check_namespace(proc, child)
            assert isinstance(child, int)
            self.userns.started(child, block_w)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            if block_w is not None:
                with contextlib.suppress(OSError):
                    os.close(block_w)
        self._await_ready(proc)
        self.userns.ready()
        self._keep = {self._inner_pid, *children(self._inner_pid)}  # bwrap's init and the waiting shell
        return proc

    def _check_namespace(self, proc: subprocess.Popen[bytes], child: object) -> None:
        own_ns = os.readlink("/proc/self/ns/pid")
        try:
            pid_ns = os.readlink(f"/proc/{child}/ns/pid") if isinstance(child, int) else own_ns
        except OSError:
            pid_ns = own_ns
        if pid_ns == own_ns:  # never act on the host's namespace as if it were the unit's
            err = b""
            with contextlib.suppress(subprocess.TimeoutExpired, ValueError):
                proc.kill()
                err = proc.communicate(timeout=10)[1]
            detail = err.decode("utf-8", "replace").strip()[-400:]
            raise SetupError(f"bubblewrap did not report the sandbox's process (no PID namespace to hold): {detail}")
        assert isinstance(child, int)
        self._inner_pid, self._pid_ns = child, pid_ns

    def reach(self, url: str) -> str:
        inside = super().reach(url)
        if inside != url:
            self.ensure_holder()
            self._ensure_relay()
        return inside

    def ensure_holder(self) -> None:
        super().ensure_holder()
        if self.egress is not None:  # every command after set-up may go out through the proxy
            self._ensure_relay()

    def _ensure_relay(self) -> None:
        """The relay inside (gateway and egress proxy), started once, when first needed."""
        if self._relay is None:
            argv = [*self._enter(self.workspace, {}), *self.holder_argv(self.python)]
            self._relay = self._start_holder(argv, env={})

    def _enter(self, cwd: Path, loader: Mapping[str, str]) -> list[str]:
        """The way into the holder's namespaces as uid 1000 without capabilities, then `cwd`.

        No `no_new_privs` step is needed: every mount of the unit is nosuid (setuid bits and file
        capabilities are ignored there) and no process inside can mount anything.
        """
        assert self.holder is not None
        script = ENTRY_SCRIPT
        if self.limits.disk:  # the largest file any process may write (dash counts 512-byte blocks)
            script = f"ulimit -f {self.limits.disk * 2048} && {script}"
        enter = self.userns.enter_argv(own_net=self.isolated_net)
        return [*enter, *loader_prefix(loader), inside_tool("sh"), "-c", script, self._inner_cwd(cwd)]

    def exec(self, command: Command, *, timeout: float, output_limit: int = OUTPUT_CAP_BYTES) -> ExecResult:
        cwd = self.workspace if command.cwd is None else self.host_path(command.cwd)
        body = list(command.argv) if command.argv is not None else [inside_tool("sh"), "-c", command.shell or ""]
        env, loader = split_loader_env({**self.base_env(), **command.env})
        if not self.sealed:  # set-up: a throwaway namespace, network as the host's
            argv = [*self._bwrap(extra_rw=command.cache_dirs, net=True, cwd=cwd), *read_only_root()]
            argv[1:1] = set_up_flags(self.unit_user)
            argv += ["--", *loader_prefix(loader), *body]
        else:
            self.ensure_holder()
            argv = [*self._enter(cwd, loader), *body]
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
        self.hand_over_home()  # the agent's own directories, made by the harness just now
        safe, loader = split_loader_env(dict(env))
        launch = [*self.limits.prefix(), *self._enter(self.workspace, loader), *argv]
        return Launch(argv=launch, env=safe, cwd=self.workspace)

    def kill_all(self) -> None:
        super().kill_all()
        if self.holder is None or self.holder.poll() is not None:
            return
        if not self._pid_ns or self._pid_ns == os.readlink("/proc/self/ns/pid"):
            return  # only ever a unit's own namespace
        keep = set(self._keep)
        if self._relay is not None:
            keep |= set(descendants(self._relay.pid))
        for pid in in_namespace(self._pid_ns, self._inner_pid):
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
            self.userns.close()
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
            reap_init(pid)
        reap_namespace_zombies()


def _uv_dir() -> list[str]:
    """Where uv lives, when it is outside what the sandbox binds anyway (set-up runs it inside)."""
    from coder_eval.sandbox.environments import find_uv

    try:
        found = os.path.dirname(os.path.realpath(find_uv()))
    except SetupError:
        return []
    return [] if under_system(found) else [found]


def _as_int(value: float | None) -> int | None:
    return None if value is None else int(value)
