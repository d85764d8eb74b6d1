"""The `docker` driver: each unit runs in a fresh container of its own.

The container starts when the unit's sandbox is created, with the holder as its main process
(PID 1), and is removed when the unit finishes. Set-up commands (uv, npm) run in it with the
bridge network; `seal()` then disconnects it unless the unit keeps a network (`sandbox.network:
host`, or a `docker.network` of its own), so pre_run, the agent and the criteria have loopback
only, and reach the gateway (and, under `network: allowlist`, the egress proxy) through the
holder's relay and the unit's Unix sockets. Mounted: the workspace and the unit's HOME
read-write at their host paths, the share directory read-only, the agent's CLI and uv read-only,
and `extra_mounts`. Memory, CPU and PID limits are docker's. The agent's CLI runs inside through
`docker exec`; variables reach it by name (`-e NAME`), so no value appears on a command line.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path

from coder_eval.common.host_tools import HostToolMissingError
from coder_eval.common.process import OUTPUT_CAP_BYTES, ExecResult
from coder_eval.models.host_paths import mount_problem
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.docker_client import EnvFiles, client_env, docker, docker_binary
from coder_eval.sandbox.drivers import PreservationMode, SandboxRequest, register_driver
from coder_eval.sandbox.environment import Command, Launch
from coder_eval.sandbox.isolated import SHARE_INNER, SOCKET_INNER, SOCKETS_INNER, IsolatedEnvironment
from coder_eval.sandbox.tempdir import Finisher, TempdirDriver
from coder_eval.sandbox.templates import SetupError

KILL_TIMEOUT = 30


def docker_available() -> bool:
    binary = docker_binary()
    if binary is None:
        return False
    try:
        return subprocess.run([binary, "info"], env=client_env(), capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _client(argv: list[str], *, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """One docker client call with the harness's own client environment."""
    return subprocess.run([_docker(), *argv], env=client_env(), capture_output=True, timeout=timeout)


class DockerEnvironment(IsolatedEnvironment):
    """One unit's container."""

    def __init__(
        self, workspace: Path, request: SandboxRequest, finisher: Finisher | None, image: str, *, seed: bool = True
    ) -> None:
        super().__init__(workspace, request, finisher, existing=not seed)
        docker = request.config.docker
        self.hold_network("docker")
        own = docker.network if docker and docker.network else None
        if own and own != "none":
            self.docker_network = own
        else:
            self.docker_network = "host" if self.network.mode == "host" else "none"
        self.isolated_net = self.docker_network == "none"
        # any network but the host's has a loopback of its own: the route comes through the bridge
        self.relay_gateway = self.docker_network != "host"
        self.image = image
        self.name = f"coder-eval-{uuid.uuid4().hex[:12]}"
        # `python` for images (like the debootstrap base) that have only python3; last on PATH
        self.bin_dir = self.unit_dir / "bin"
        self.bin_dir.mkdir()
        (self.bin_dir / "python").symlink_to(self.python)
        from coder_eval.sandbox.environments import link_uv

        link_uv(self.bin_dir)  # uv for the unit, though the harness's venv is never on its PATH
        self.env_files = EnvFiles(self.unit_dir / "env")
        self.tool_mounts = tool_mounts(self.tools, self.unit_user.separate)
        self.workdir = image_workdir(image, docker.working_dir if docker else None)
        if self.workdir is not None and seed:
            seed_workspace(image, self.workdir, workspace)
        self.holder = self.start_holder()

    @property
    def python(self) -> str:
        return "/usr/bin/python3"  # absolute: record_cli shims name it in their #! line

    def _run_argv(self) -> list[str]:
        cfg = self.config
        limits = cfg.limits
        start_net = "bridge" if self.isolated_net else self.docker_network
        argv = [_docker(), "run", "--rm", "-i", "--name", self.name, "--network", start_net, "--init=false"]
        # no privilege inside: a non-zero uid, no capabilities, nothing that could grant one
        argv += ["--user", f"{self.unit_user.uid}:{self.unit_user.gid}", "--cap-drop", "ALL"]
        argv += ["--security-opt", "no-new-privileges"]
        memory, pids, disk, tmp = (
            limits.effective(n) for n in ("max_memory_mb", "max_pids", "max_disk_mb", "tmp_size_mb")
        )
        if memory:
            argv += ["--memory", f"{memory}m"]
        if limits.max_cpus:
            argv += ["--cpus", str(limits.max_cpus)]
        if pids:
            argv += ["--pids-limit", str(pids)]
        if disk:
            argv += ["--ulimit", f"fsize={int(disk) * 1024 * 1024}"]
        size = f",size={tmp}m" if tmp else ""
        argv += ["--tmpfs", f"/tmp:rw,nosuid,nodev,mode=1777{size}"]
        for rw in (self.workspace, self.home_dir):
            argv += ["-v", f"{rw}:{rw}"]
        argv += ["-v", f"{self.share_dir}:{SHARE_INNER}:ro", "-v", f"{self.bridge.path}:{SOCKET_INNER}"]
        argv += ["-v", f"{self.socket_dir}:{SOCKETS_INNER}:ro"]  # harness services (the egress proxy)
        argv += ["-v", f"{self.bin_dir}:{self.bin_dir}:ro"]
        argv += ["-v", f"{self.socket_dir}:{SOCKETS_INNER}:ro"]  # harness services (record_cli)
        from coder_eval.sandbox.environments import find_uv

        with contextlib.suppress(SetupError):
            uv = str(Path(find_uv()).resolve())
            argv += ["-v", f"{uv}:{uv}:ro"]
        for tool, inner in self.tool_mounts.items():
            argv += ["-v", f"{tool}:{inner}:ro"]
        for shared in self.request.shared:  # the task's Python environment, where its build put it
            argv += ["-v", f"{shared}:{shared}:ro"]
        for cert in _certificates():  # the machine's CA settings, so installs inside trust the same roots
            argv += ["-v", f"{cert}:{cert}:ro"]
        for host, mode in extra_mounts(cfg, self.request.task_dir):
            argv += ["-v", f"{host}:{host}:{mode}"]
        if self.workdir is not None:  # the same workspace, also where the image expects its work
            argv += ["-v", f"{self.workspace}:{self.workdir}"]
        # the holder is the container's first process whatever ENTRYPOINT the image declares (an image's own
        # entrypoint script would otherwise receive the holder as its arguments, or run something else)
        holder = self.holder_argv(self.python)
        return [*argv, "-w", self._inner_cwd(self.workspace), "--entrypoint", holder[0], self.image, *holder[1:]]

    def limits_in_force(self) -> dict[str, str]:
        limits = self.config.limits
        how = {
            "max_memory_mb": "--memory",
            "max_cpus": "--cpus",
            "max_pids": "--pids-limit",
            "tmp_size_mb": "tmpfs size",
        }
        found = {n: f"{limits.effective(n):g} ({h})" for n, h in how.items() if limits.effective(n)}
        if limits.effective("max_disk_mb"):
            found["max_disk_mb"] = (
                f"{limits.effective('max_disk_mb'):g} (workspace and HOME; the container's own layer is not bounded)"
            )
        return found

    def base_env(self) -> dict[str, str]:
        env = super().base_env()
        env["PATH"] = os.pathsep.join(p for p in (env.get("PATH"), str(self.bin_dir)) if p)
        return env

    def _inner_cwd(self, cwd: Path) -> str:
        """Where a command starts inside: the image's working directory stands for the workspace."""
        if self.workdir is None or cwd != self.workspace:
            return str(cwd)
        return self.workdir

    def start_holder(self) -> subprocess.Popen[bytes]:
        return self._start_holder(self._run_argv(), env=client_env())

    def seal(self) -> None:
        if not self.sealed:
            self._hand_over_and_watch()
            if self.isolated_net:
                done = _client(["network", "disconnect", "--force", "bridge", self.name], timeout=60)
                if done.returncode != 0:
                    raise SetupError(f"could not take the container off the network: {done.stderr.decode()[-400:]}")
        self.sealed = True

    def _exec_argv(self, cwd: Path, env: Mapping[str, str], *, stdin: bool) -> tuple[list[str], dict[str, str]]:
        """`docker exec` up to the container name, and the client environment that goes with it."""
        argv = [_docker(), "exec", "-w", self._inner_cwd(cwd)]
        if not self.sealed and self.unit_user.separate:
            argv += ["--user", "0:0"]  # set-up fills the harness-owned workspace; it is handed over at seal
        if stdin:
            argv.append("-i")
        try:
            flags, by_name = self.env_files.flags(env)
        except ValueError as exc:
            raise SetupError(str(exc)) from None
        return [*argv, *flags, self.name], {**client_env(), **by_name}

    def _private_caches(self, command: Command, env: dict[str, str]) -> dict[str, str]:
        """Package caches of the host cannot be mounted into a running container: set-up uses one in HOME."""
        for cache in command.cache_dirs:
            for name, value in list(env.items()):
                if value == str(cache):
                    env[name] = str(self.home_dir / ".cache" / cache.name)
        return env

    def exec(self, command: Command, *, timeout: float, output_limit: int = OUTPUT_CAP_BYTES) -> ExecResult:
        cwd = self.workspace if command.cwd is None else self.host_path(command.cwd)
        body = list(command.argv) if command.argv is not None else ["/bin/sh", "-c", command.shell or ""]
        env = self._private_caches(command, {**self.base_env(), **command.env})
        argv, client = self._exec_argv(cwd, env, stdin=command.stdin is not None)
        argv += [image_tool(self.name, self.image, "timeout"), "-s", "KILL", f"{timeout:g}"]
        return self.run_tracked(
            command,
            argv=[*argv, *body],
            cwd=self.workspace,
            env=client,
            timeout=timeout + 5,
            output_limit=output_limit,
        )

    def agent_launch(self, argv: list[str], env: Mapping[str, str]) -> Launch:
        self.hand_over_home()  # the agent's own directories, made by the harness just now
        launch, client = self._exec_argv(self.workspace, dict(env), stdin=True)
        return Launch(argv=[*launch, *(_inner_path(a, self.tool_mounts) for a in argv)], env=client, cwd=self.workspace)

    def kill_all(self) -> None:
        super().kill_all()
        if self.holder is not None and self.holder.poll() is None:
            # kill(-1) from inside signals every process of the container but PID 1 (the holder)
            _client(["exec", self.name, "/bin/sh", "-c", "kill -9 -1"], timeout=KILL_TIMEOUT)

    def finish(self) -> Path | None:
        try:
            return super().finish()
        finally:
            _client(["rm", "-f", self.name], timeout=KILL_TIMEOUT)


TOOLS_INNER = "/coder-eval/tools"
_image_tools: dict[tuple[str, str], str] = {}
_image_lock = threading.Lock()


def image_tool(container: str, image: str, name: str) -> str:
    """The absolute path of a program of the image itself, found once per image on its own PATH.

    Commands inside run with the unit's PATH, whose first entries the agent can write; a wrapper
    the harness relies on (the kill timer around every command) must not be looked up there.
    """
    key = (image, name)
    with _image_lock:
        found = _image_tools.get(key)
    if found is None:
        # a fresh exec gets the image's own environment, not the unit's
        done = _client(["exec", container, "/bin/sh", "-c", f"command -v {name}"], timeout=60)
        found = done.stdout.decode().strip().splitlines()[-1] if done.returncode == 0 and done.stdout.strip() else ""
        if not found.startswith("/"):
            raise SetupError(f"the image {image} has no {name!r} program, which the docker driver needs")
        with _image_lock:
            _image_tools[key] = found
    return found


def tool_mounts(tools: list[Path], separate_user: bool) -> dict[str, str]:
    """Where each agent tool directory appears inside: at its host path, unless the unit's user could
    not reach it there (a parent such as /root that only root may enter), then under /coder-eval/tools."""
    out: dict[str, str] = {}
    for index, tool in enumerate(t for t in tools if t.exists()):
        closed = separate_user and any(p.stat().st_mode & 0o001 == 0 for p in tool.parents)
        out[str(tool)] = f"{TOOLS_INNER}/{index}" if closed else str(tool)
    return out


def _inner_path(arg: str, mounts: dict[str, str]) -> str:
    """`arg` as seen inside when it lies under a tool directory mounted elsewhere."""
    for host, inner in mounts.items():
        if host != inner and (arg == host or arg.startswith(host + "/")):
            return inner + arg[len(host) :]
    return arg


def image_workdir(image: str, working_dir: str | None) -> str | None:
    """The directory inside where the workspace also appears: docker.working_dir, or with 'auto' the
    image's WORKDIR (None when unset, or when the image declares none or '/')."""
    if working_dir is None:
        return None
    if working_dir == "auto":
        done = _client(["image", "inspect", "-f", "{{.Config.WorkingDir}}", image], timeout=60)
        if done.returncode != 0:
            raise SetupError(f"could not inspect image {image}: {done.stderr.decode()[-400:]}")
        working_dir = done.stdout.decode().strip()
    if working_dir in ("", "/"):
        return None
    if not working_dir.startswith("/") or ".." in working_dir.split("/"):
        raise SetupError(f"sandbox.docker.working_dir must be an absolute path inside the image, not {working_dir!r}")
    return working_dir.rstrip("/")


def seed_workspace(image: str, workdir: str, workspace: Path) -> None:
    """Copy what the image has in `workdir` into the (still empty) workspace, so it is graded and kept."""
    name = f"coder-eval-seed-{uuid.uuid4().hex[:12]}"
    create = _client(["create", "--name", name, image], timeout=KILL_TIMEOUT)
    if create.returncode != 0:
        raise SetupError(f"could not create a container of {image}: {create.stderr.decode()[-400:]}")
    try:
        done = _client(["cp", f"{name}:{workdir}/.", str(workspace)], timeout=300)
        if done.returncode != 0 and b"Could not find the file" not in done.stderr:
            raise SetupError(f"could not copy {workdir} out of {image}: {done.stderr.decode()[-400:]}")
    finally:
        _client(["rm", "-f", name], timeout=KILL_TIMEOUT)


def extra_mounts(config: SandboxConfig, task_dir: Path | None) -> list[tuple[Path, str]]:
    """The resolved (host path, mode) of each docker.extra_mounts entry; a refused one raises SetupError."""
    out = []
    for entry in config.docker.extra_mounts if config.docker else []:
        path, mode, why = mount_problem(entry, config, task_dir or Path.cwd())
        if why is not None:
            raise SetupError(f"sandbox.docker.extra_mounts: {why}")
        out.append((path, mode))
    return out


def _certificates() -> list[str]:
    names = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS")
    found = {os.path.realpath(os.environ[n]) for n in names if os.environ.get(n)}
    dirs = {p for p in found if os.path.isdir(p)}
    # a file inside a mounted directory comes with it
    files = {p for p in found if os.path.isfile(p) and not any(p.startswith(d + "/") for d in dirs)}
    return sorted(dirs | files)


def _docker() -> str:
    """The docker client by absolute path (never looked up in a unit's PATH)."""
    try:
        return docker()
    except HostToolMissingError as exc:
        raise SetupError(str(exc)) from None


@register_driver("docker")
class DockerDriver(TempdirDriver):
    """A fresh container per unit (needs a running Docker daemon)."""

    name = "docker"
    default_preservation = PreservationMode.MOVE_ON_WRITE

    def create(self, request: SandboxRequest) -> DockerEnvironment:
        from coder_eval.sandbox.docker_image import image_for

        if not docker_available():
            raise SetupError("docker is not installed or its daemon is not running (see scripts/sandbox-deps.sh)")
        image = image_for(request.config.docker, request.task_dir or Path.cwd())
        workspace = self.new_workspace(request)
        return DockerEnvironment(
            workspace, request, Finisher(request.artifacts_dir, request.mode, request.notes), image
        )

    def adopt(self, workspace: Path, request: SandboxRequest) -> DockerEnvironment:
        """A container over an existing workspace (re-grading runs the agent's code: never on the host)."""
        from coder_eval.sandbox.docker_image import image_for

        if not docker_available():
            raise SetupError("docker is not installed or its daemon is not running (see scripts/sandbox-deps.sh)")
        image = image_for(request.config.docker, request.task_dir or Path.cwd())
        env = DockerEnvironment(workspace.resolve(), request, None, image, seed=False)
        env.seal()
        return env
