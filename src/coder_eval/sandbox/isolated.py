"""What the namespace drivers (bubblewrap, docker) share: a unit directory, a holder, a gateway bridge.

Each unit gets a private host directory holding its HOME (`home/`, mounted read-write at the same
path inside), a `share/` directory mounted read-only at `/coder-eval/share` (where the task view
and, for grading only, the reference appear), and a socket directory under the system temp dir
holding the Unix socket of its gateway bridge and of its other harness services (`service_socket`:
the record_cli recorder, the egress proxy), mounted read-only at `/coder-eval/sockets`: the unit
connects, but cannot remove or replace one. The
workspace is mounted read-write at its host path, so paths inside and outside agree.

The network (`sandbox.network`, see `egress_policy.py`): under `none` the only way out is the
gateway route; under `allowlist` the holder's relay also serves the unit's egress proxy on
`127.0.0.1:41415` and, once set-up is over, every command and the agent get it as their proxy;
under `host` the unit shares the host's network.

Set-up (templates are copied by the harness; uv and npm installs run inside) happens before the
holder starts; `seal()` starts it, and from then on every command and the agent run inside the
holder's namespace or container, which ends, with everything in it, when the unit finishes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from abc import abstractmethod
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit, urlunsplit

from coder_eval.common.process import exits_within
from coder_eval.models.network import NetworkRecord
from coder_eval.sandbox.bridge import INNER_PORT, SocketBridge
from coder_eval.sandbox.disk_watch import DiskWatch
from coder_eval.sandbox.drivers import PreservationMode, SandboxRequest
from coder_eval.sandbox.egress_mirror import INNER_EGRESS_PORT
from coder_eval.sandbox.egress_policy import EgressPolicy, HeldNetwork, resolve_mode
from coder_eval.sandbox.egress_proxy import EgressProxy
from coder_eval.sandbox.holder import HOLDER_SOURCE
from coder_eval.sandbox.tempdir import Finisher, HostEnvironment
from coder_eval.sandbox.unit_user import hand_over, owner_of, take_back, unit_user

SHARE_INNER = PurePosixPath("/coder-eval/share")
SOCKET_INNER = "/coder-eval/gw.sock"
SOCKETS_INNER = PurePosixPath("/coder-eval/sockets")
"""Where the unit's socket directory (its harness services: the record_cli recorder, the egress proxy) is mounted,
read-only."""
HOLDER_START_TIMEOUT = 60.0


def copy_shared(src: Path, dst: Path) -> None:
    """Copy a directory tree for one unit (symlinks are dropped), files read-only.

    Copies, not hard links: a link would share the inode with the run's one task view (or the
    staged reference), and change its link count and change time with every unit that is shown it,
    which is what the view's tamper check watches.
    """
    for root, dirs, files in os.walk(src):
        rel = Path(root).relative_to(src)
        (dst / rel).mkdir(parents=True, exist_ok=True)
        dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink()]
        for name in files:
            item = Path(root) / name
            if item.is_symlink() or not item.is_file():
                continue
            shutil.copyfile(item, dst / rel / name)
            os.chmod(dst / rel / name, 0o444 if not os.access(item, os.X_OK) else 0o555)


class IsolatedEnvironment(HostEnvironment):
    """A HostEnvironment whose commands run inside a per-unit holder once sealed."""

    shared_read_only = True

    def __init__(
        self, workspace: Path, request: SandboxRequest, finisher: Finisher | None, *, existing: bool = False
    ) -> None:
        scratch = request.scratch
        if scratch is not None:
            scratch.mkdir(parents=True, exist_ok=True)
        self.unit_dir = Path(tempfile.mkdtemp(prefix="unit-", dir=scratch)).resolve()
        self.unit_dir.chmod(0o711)
        self.unit_user = owner_of(workspace) if existing else unit_user(runs_agent=request.runs_agent)
        home = self.unit_dir / "home"
        home.mkdir(mode=0o700)
        self.share_dir = self.unit_dir / "share"
        self.share_dir.mkdir()
        super().__init__(workspace, finish=finisher, home=home, passthrough=request.config.passthrough())
        self.request = request
        self.config = request.config
        self.isolated_net = True
        self.relay_gateway = True
        """Whether the gateway is reached through the bridged socket (the inside's loopback is not the host's)."""
        # Unix socket paths are short (108 bytes): the socket lives in a private directory under /tmp
        self.socket_dir = Path(tempfile.mkdtemp(prefix="ce-gw-"))
        self.socket_dir.chmod(0o711)  # the unit's user may be another uid: it may enter, not list
        self.bridge = SocketBridge(self.socket_dir / "gw.sock")
        self.holder: subprocess.Popen[bytes] | None = None
        self.sealed = False
        self.disk_watch: DiskWatch | None = None
        self.network = HeldNetwork("none", True)
        self.egress: EgressProxy | None = None

    def hold_network(self, driver: str) -> None:
        """Settle the unit's network under `driver`; under allowlist, start its egress proxy."""
        self.network = resolve_mode(self.config, driver)
        self.isolated_net = self.network.mode != "host"
        if self.network.mode == "allowlist":
            host_path, _ = self.service_socket("egress")
            self.egress = EgressProxy(EgressPolicy.build(self.config.allow_hosts), host_path)

    def service_socket(self, name: str) -> tuple[Path, PurePosixPath]:
        """In the unit's socket directory, which the drivers mount read-only at SOCKETS_INNER."""
        if not name.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"a service socket's name is a plain word, not {name!r}")
        return self.socket_dir / f"{name}.sock", SOCKETS_INNER / f"{name}.sock"

    def relay_pairs(self) -> list[str]:
        """`port:socket` for each relay the holder serves inside (the gateway, the egress proxy)."""
        pairs = [f"{INNER_PORT}:{SOCKET_INNER}"] if self.relay_gateway else []
        if self.egress is not None:
            pairs.append(f"{INNER_EGRESS_PORT}:{self.service_socket('egress')[1]}")
        return pairs

    def base_env(self) -> dict[str, str]:
        env = super().base_env()
        if self.sealed and self.egress is not None:
            from coder_eval.sandbox.egress_env import unit_network_env

            env.update(unit_network_env(self.egress.policy))
        return env

    def network_phase(self, phase: str) -> None:
        """What the unit does now, for the egress record (pre_run, agent, grading, post_run)."""
        if self.egress is not None:
            self.egress.set_phase(phase)

    def network_record(self) -> NetworkRecord:
        """The policy as it held and every attempt so far."""
        events, dropped = self.egress.snapshot() if self.egress is not None else ([], 0)
        allowed = self.egress.policy.allowed() if self.egress is not None else []
        held = self.network
        return NetworkRecord(
            mode=held.mode,
            enforced=held.enforced,
            note=held.note,
            allow_hosts=allowed,
            events=events,
            dropped_events=dropped,
        )

    @property
    def tools(self) -> list[Path]:
        """Host paths of programs the unit runs (agent CLIs, uv), made visible read-only."""
        return [Path(t) for t in self.request.tools]

    def holder_argv(self, python: str) -> list[str]:
        return [python, "-I", "-S", "-c", HOLDER_SOURCE, *self.relay_pairs()]

    def _start_holder(
        self, argv: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()
    ) -> subprocess.Popen[bytes]:
        return self._await_ready(self._spawn_holder(argv, env, pass_fds))

    @staticmethod
    def _spawn_holder(argv: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            pass_fds=pass_fds,
        )

    @staticmethod
    def _await_ready(proc: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
        """Wait for the holder's "ready" line; a holder that fails to start raises SetupError with its output."""
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != b"ready":
            proc.kill()
            err = proc.communicate(timeout=HOLDER_START_TIMEOUT)[1].decode("utf-8", "replace")
            from coder_eval.sandbox.templates import SetupError

            raise SetupError(f"the sandbox could not start: {(line.decode() + err).strip()[-800:]}")
        return proc

    def seal(self) -> None:
        """Set-up is over: the unit's user gets its workspace and HOME; the holder starts when first needed."""
        if not self.sealed:
            self._hand_over_and_watch()
        self.sealed = True

    def _hand_over_and_watch(self) -> None:
        hand_over([self.workspace, self.home_dir], self.unit_user)
        cap = self.config.limits.effective("max_disk_mb")
        if cap and self.disk_watch is None:
            self.disk_watch = DiskWatch([self.workspace, self.home_dir], int(cap), self._over_disk)

    def _over_disk(self, _why: str) -> None:
        self.kill_all()

    def limit_breach(self) -> str | None:
        """Why the unit went over one of its limits (its processes were killed then), if it did."""
        return self.disk_watch.breach if self.disk_watch is not None else None

    def ensure_holder(self) -> None:
        if not self.sealed:
            self._hand_over_and_watch()
            self.sealed = True
        if self.holder is None:
            self.holder = self.start_holder()

    def hand_over_home(self) -> None:
        """Give the unit's user what the harness created in its HOME since (an agent's config directories)."""
        hand_over([self.home_dir], self.unit_user)

    @abstractmethod
    def start_holder(self) -> subprocess.Popen[bytes]:
        """Start the unit's namespace or container; returns its holder process (stdin held open)."""

    def reach(self, url: str) -> str:
        if not self.relay_gateway:
            return url
        parts = urlsplit(url)
        if parts.hostname not in ("127.0.0.1", "localhost") or parts.port is None:
            return url
        self.bridge.point_at(parts.port)
        return urlunsplit(parts._replace(netloc=f"127.0.0.1:{INNER_PORT}"))

    def share(self, host: Path, name: str) -> PurePosixPath:
        target = self.share_dir / name
        self.unshare(name)
        copy_shared(host, target)
        return SHARE_INNER / name

    def unshare(self, name: str) -> None:
        target = self.share_dir / name
        if target.exists():
            shutil.rmtree(target)

    def stop_holder(self) -> None:
        if self.holder is None:
            return
        proc, self.holder = self.holder, None
        if proc.stdin is not None:
            proc.stdin.close()
        if not exits_within(proc, 5):  # woken as it exits, not on Popen's polling schedule
            proc.kill()
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()

    def end_processes(self) -> None:
        """Before the holder stops: end every process of the unit."""
        self.kill_all()

    def finish(self) -> Path | None:
        try:
            self.end_processes()
            self.stop_holder()
            if self.disk_watch is not None:
                self.disk_watch.final_check()
        finally:
            self.bridge.close()
            if self.egress is not None:
                self.egress.close()
            shutil.rmtree(self.socket_dir, ignore_errors=True)
            if self.request.mode is not PreservationMode.NONE:
                take_back(self.workspace, self.unit_user)
            kept = super().finish()
            shutil.rmtree(self.unit_dir, ignore_errors=True)
        return kept
