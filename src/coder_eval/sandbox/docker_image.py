"""Which image a docker unit runs, and building a task's Dockerfile once per content.

A task names a pre-built `image`, or a `dockerfile_path` whose directory is the build context.
Built images are tagged by a digest of the context (and the build options), so a run builds each
distinct Dockerfile once and a later run with the same content reuses it; concurrent units of the
same task wait for the one build. Without either, units run the base image that
`scripts/sandbox-deps.sh` builds offline (debootstrap + docker import).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
from pathlib import Path

from coder_eval.common.host_tools import HostToolMissingError
from coder_eval.models.sandbox import DockerConfig
from coder_eval.sandbox.docker_client import client_env, docker
from coder_eval.sandbox.templates import SetupError

DEFAULT_IMAGE = os.environ.get("CODER_EVAL_DOCKER_IMAGE", "coder-eval-base:latest")
BUILD_TIMEOUT = 1800
LOG_TAIL = 4000

_locks: dict[str, threading.Lock] = {}
_guard = threading.Lock()


class BuildFailedError(SetupError):
    """`docker build` failed; `log` holds the tail of its output."""

    def __init__(self, message: str, log: str) -> None:
        super().__init__(message)
        self.log = log


def _context_digest(context: Path, dockerfile: Path, config: DockerConfig) -> str:
    h = hashlib.sha256()
    for root, dirs, files in os.walk(context):
        dirs.sort()
        for name in sorted(files):
            path = Path(root) / name
            h.update(path.relative_to(context).as_posix().encode() + b"\0")
            if path.is_file() and not path.is_symlink():
                h.update(path.read_bytes())
    h.update(dockerfile.as_posix().encode())
    if config.build is not None:
        h.update(config.build.model_dump_json().encode())
    return h.hexdigest()[:20]


def _client() -> str:
    try:
        return docker()
    except HostToolMissingError as exc:
        raise SetupError(str(exc)) from None


def _exists(tag: str) -> bool:
    done = subprocess.run([_client(), "image", "inspect", tag], env=client_env(), capture_output=True, timeout=60)
    return done.returncode == 0


def _build_argv(tag: str, dockerfile: Path, config: DockerConfig) -> tuple[list[str], dict[str, str]]:
    argv = [_client(), "build", "--network", "host", "-t", tag, "-f", str(dockerfile)]
    env = {**os.environ, **client_env()}  # build secrets may name the operator's variables
    if config.build is not None:
        for key, value in config.build.args.items():
            argv += ["--build-arg", f"{key}={os.path.expandvars(value)}"]
        for secret in config.build.secrets:
            argv += ["--secret", secret]
        argv += list(config.build.extra_args)
        if config.build.buildkit is not None:
            env["DOCKER_BUILDKIT"] = "1" if config.build.buildkit else "0"
    return [*argv, str(dockerfile.parent)], env


def image_for(config: DockerConfig | None, task_dir: Path) -> str:
    """The image tag to run: the named one, a build of the task's Dockerfile, or the base image."""
    if config is None or (config.image is None and config.dockerfile_path is None):
        return DEFAULT_IMAGE
    if config.dockerfile_path is None:
        return config.image or DEFAULT_IMAGE
    dockerfile = (task_dir / config.dockerfile_path).resolve()
    if not dockerfile.is_file():
        raise SetupError(f"sandbox.docker.dockerfile_path: {dockerfile} is not a file")
    tag = f"coder-eval-task-{_context_digest(dockerfile.parent, dockerfile, config)}:built"
    with _guard:
        lock = _locks.setdefault(tag, threading.Lock())
    with lock:
        if _exists(tag):
            return tag
        argv, env = _build_argv(tag, dockerfile, config)
        try:
            done = subprocess.run(argv, env=env, capture_output=True, timeout=BUILD_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise BuildFailedError(f"docker build timed out after {BUILD_TIMEOUT}s", "") from None
        if done.returncode != 0:
            log = (done.stdout + done.stderr).decode("utf-8", "replace")[-LOG_TAIL:]
            why = f"docker build of {dockerfile} failed (exit {done.returncode})"
            if "buildx component is missing" in log:
                why += " (BuildKit needs Docker's buildx plugin, which this machine lacks; set build.buildkit: false)"
            raise BuildFailedError(why, log)
    return tag
