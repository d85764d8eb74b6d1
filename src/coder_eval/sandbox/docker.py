"""The `docker` driver: each unit runs in a fresh container of its own.

The container starts when the unit's sandbox is created, with the holder as its main process
(PID 1), and is removed when the unit finishes. Set-up commands (uv, npm) run in it with the
bridge network; `seal()` then disconnects it when `docker.network` is `none` (the default), so
pre_run, the agent and the criteria have loopback only, and reach the gateway through the
holder's relay and the unit's bridged Unix socket. Mounted: the workspace and the unit's HOME
read-write at their host paths, the share directory read-only, the agent's CLI and uv read-only,
and `extra_mounts`. Memory, CPU and PID limits are docker's. The agent's CLI runs inside through
`docker exec`; variables reach it by name (`-e NAME`), so no value appears on a command line.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Mapping
from pathlib import Path

from coder_eval.common.process import OUTPUT_CAP_BYTES, ExecResult
from coder_eval.models.host_paths import mount_problem
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.drivers import PreservationMode, SandboxRequest, register_driver
from coder_eval.sandbox.environment import Command, Launch
from coder_eval.sandbox.isolated import SHARE_INNER, SOCKET_INNER, IsolatedEnvironment
from coder_eval.sandbox.tempdir import Finisher, TempdirDriver
from coder_eval.sandbox.templates import SetupError

KILL_TIMEOUT = 30


def docker_available() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


class DockerEnvironment(IsolatedEnvironment):
    """One unit's container."""

    def __init__(self, workspace: Path, request: SandboxRequest, finisher: Finisher | None, image: str) -> None:
        super().__init__(workspace, request, finisher)
        docker = request.config.docker
        self.network = (docker.network if docker and docker.network else None) or "none"
        self.isolated_net = self.network == "none"
        # any network but the host's has a loopback of its own: the route comes through the bridge
        self.relay_gateway = self.network != "host"
        self.image = image
        self.name = f"coder-eval-{uuid.uuid4().hex[:12]}"
        # `python` for images (like the debootstrap base) that have only python3; last on PATH
        self.bin_dir = self.unit_dir / "bin"
        self.bin_dir.mkdir()
        (self.bin_dir / "python").symlink_to(self.python)
        self.workdir = image_workdir(image, docker.working_dir if docker else None)
        if self.workdir is not None:
            seed_workspace(image, self.workdir, workspace)
        self.holder = self.start_holder()

    @property
    def python(self) -> str:
        return "/usr/bin/python3"  # absolute: record_cli shims name it in their #! line

    def _run_argv(self) -> list[str]:
        cfg = self.config
        limits = cfg.limits
        start_net = "bridge" if self.isolated_net else self.network
        argv = [_docker(), "run", "--rm", "-i", "--name", self.name, "--network", start_net, "--init=false"]
        if limits.max_memory_mb:
            argv += ["--memory", f"{limits.max_memory_mb}m"]
        if limits.max_cpus:
            argv += ["--cpus", str(limits.max_cpus)]
        if limits.max_pids:
            argv += ["--pids-limit", str(limits.max_pids)]
        for rw in (self.workspace, self.home_dir):
            argv += ["-v", f"{rw}:{rw}"]
        argv += ["-v", f"{self.share_dir}:{SHARE_INNER}:ro", "-v", f"{self.bridge.path}:{SOCKET_INNER}"]
        argv += ["-v", f"{self.bin_dir}:{self.bin_dir}:ro"]
        from coder_eval.sandbox.environments import find_uv

        with_uv = [*self.tools]
        with contextlib.suppress(SetupError):
            with_uv.append(Path(find_uv()).resolve())
        for tool in with_uv:
            if tool.exists():
                argv += ["-v", f"{tool}:{tool}:ro"]
        for cert in _certificates():  # the machine's CA settings, so installs inside trust the same roots
            argv += ["-v", f"{cert}:{cert}:ro"]
        for host, mode in extra_mounts(cfg, self.request.task_dir):
            argv += ["-v", f"{host}:{host}:{mode}"]
        if self.workdir is not None:  # the same workspace, also where the image expects its work
            argv += ["-v", f"{self.workspace}:{self.workdir}"]
        return [*argv, "-w", self._inner_cwd(self.workspace), self.image, *self.holder_argv(self.python)]

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
        return self._start_holder(self._run_argv(), env={"PATH": "/usr/local/bin:/usr/bin:/bin"})

    def seal(self) -> None:
        if not self.sealed and self.isolated_net:
            done = subprocess.run(
                ["docker", "network", "disconnect", "--force", "bridge", self.name], capture_output=True, timeout=60
            )
            if done.returncode != 0:
                raise SetupError(f"could not take the container off the network: {done.stderr.decode()[-400:]}")
        self.sealed = True

    def _exec_argv(self, cwd: Path, env: Mapping[str, str], *, stdin: bool) -> list[str]:
        argv = [_docker(), "exec", "-w", self._inner_cwd(cwd)]
        if stdin:
            argv.append("-i")
        for name in sorted(env):
            argv += ["-e", name]  # the value comes from the docker client's environment
        return [*argv, self.name]

    def exec(self, command: Command, *, timeout: float, output_limit: int = OUTPUT_CAP_BYTES) -> ExecResult:
        cwd = self.workspace if command.cwd is None else self.host_path(command.cwd)
        body = list(command.argv) if command.argv is not None else ["/bin/sh", "-c", command.shell or ""]
        env = {**self.base_env(), **command.env}
        argv = [*self._exec_argv(cwd, env, stdin=command.stdin is not None), "timeout", "-s", "KILL", f"{timeout:g}"]
        return self.run_tracked(
            command,
            argv=[*argv, *body],
            cwd=self.workspace,
            env=env,
            timeout=timeout + 5,
            output_limit=output_limit,
        )

    def agent_launch(self, argv: list[str], env: Mapping[str, str]) -> Launch:
        inner = dict(env)
        launch = [*self._exec_argv(self.workspace, inner, stdin=True), *argv]
        return Launch(argv=launch, env=inner, cwd=self.workspace)

    def kill_all(self) -> None:
        super().kill_all()
        if self.holder is not None and self.holder.poll() is None:
            # kill(-1) from inside signals every process of the container but PID 1 (the holder)
            argv = ["docker", "exec", self.name, "/bin/sh", "-c", "kill -9 -1"]
            subprocess.run(argv, capture_output=True, timeout=KILL_TIMEOUT)

    def finish(self) -> Path | None:
        try:
            return super().finish()
        finally:
            subprocess.run(["docker", "rm", "-f", self.name], capture_output=True, timeout=KILL_TIMEOUT)


def image_workdir(image: str, working_dir: str | None) -> str | None:
    """The directory inside where the workspace also appears: docker.working_dir, or with 'auto' the
    image's WORKDIR (None when unset, or when the image declares none or '/')."""
    if working_dir is None:
        return None
    if working_dir == "auto":
        done = subprocess.run(
            [_docker(), "image", "inspect", "-f", "{{.Config.WorkingDir}}", image], capture_output=True, timeout=60
        )
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
    create = subprocess.run([_docker(), "create", "--name", name, image], capture_output=True, timeout=KILL_TIMEOUT)
    if create.returncode != 0:
        raise SetupError(f"could not create a container of {image}: {create.stderr.decode()[-400:]}")
    try:
        copy = [_docker(), "cp", f"{name}:{workdir}/.", str(workspace)]
        done = subprocess.run(copy, capture_output=True, timeout=300)
        if done.returncode != 0 and b"Could not find the file" not in done.stderr:
            raise SetupError(f"could not copy {workdir} out of {image}: {done.stderr.decode()[-400:]}")
    finally:
        subprocess.run([_docker(), "rm", "-f", name], capture_output=True, timeout=KILL_TIMEOUT)


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
    """The docker client by absolute path (it runs with the sandbox's PATH, meant for inside)."""
    return shutil.which("docker") or "docker"


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
