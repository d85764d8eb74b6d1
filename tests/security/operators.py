"""Who runs the harness in the security tests: root (as CI does) or an ordinary user (a laptop).

The ordinary user is a uid with no account (`UNPRIVILEGED_UID`), started with `setpriv`. It gets a
home and a work directory of its own under /tmp and runs Coder Eval from this checkout's venv on the
system's Python of the same version (the venv's own interpreter may live under /root, which an
ordinary user cannot enter); docker access comes from the `docker` group, as on a workstation.
"""

from __future__ import annotations

import grp
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

UNPRIVILEGED_UID = 4242
TIMEOUT = 900
SITE = sysconfig.get_paths()["purelib"]
BOOT = (
    "import runpy, site, sys; site.addsitedir(sys.argv.pop(1)); sys.argv[0] = 'coder-eval'; "
    "runpy.run_module('coder_eval', run_name='__main__', alter_sys=True)"
)


def _system_python() -> str | None:
    """An interpreter outside /root with this venv's Python version (its compiled wheels must load)."""
    want = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (f"/usr/bin/{want}", f"/usr/local/bin/{want}"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def docker_ready() -> bool:
    docker = shutil.which("docker")
    if docker is None or subprocess.run([docker, "info"], capture_output=True, timeout=60).returncode:
        return False
    image = os.environ.get("CODER_EVAL_DOCKER_IMAGE", "coder-eval-base:latest")
    return subprocess.run([docker, "image", "inspect", image], capture_output=True, timeout=60).returncode == 0


def bwrap_ready() -> bool:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = [bwrap, "--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"]
    return subprocess.run(probe, env={}, capture_output=True, timeout=30).returncode == 0


def require_driver(driver: str) -> None:
    ready = bwrap_ready() if driver == "bubblewrap" else docker_ready()
    if not ready:
        if os.environ.get("CI"):
            pytest.fail(f"the {driver} driver is not usable in CI (scripts/sandbox-deps.sh sets it up)")
        pytest.skip(f"the {driver} driver is not usable here (scripts/sandbox-deps.sh sets it up)")


@dataclass
class Operator:
    """The harness's user for one test: `root` or `user`."""

    name: str
    work: Path
    """A directory this operator owns: tasks, runs and its HOME go here."""

    @property
    def uid(self) -> int:
        return 0 if self.name == "root" else UNPRIVILEGED_UID

    @property
    def home(self) -> Path:
        return self.work / "home"

    def own(self, *paths: Path) -> None:
        """Hand files the test wrote to the operator (no-op for root)."""
        if self.name == "root":
            return
        for path in paths:
            for here, dirs, files in os.walk(path):
                for name in [".", *dirs, *files]:
                    os.lchown(os.path.join(here, name), self.uid, self.uid)

    def cli(
        self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`coder-eval ARGS` as this operator, with `env` added to a clean environment."""
        # the venv's bin first, as an activated venv would have it (uv lives there)
        path = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"
        base = {"HOME": str(self.home), "PATH": path, "LANG": "C.UTF-8"}
        if os.environ.get("PYTHONPATH") and self.name == "root":  # run another tree's code (before/after checks)
            base["PYTHONPATH"] = os.environ["PYTHONPATH"]
        base.update(env or {})
        if self.name == "root":
            argv = [sys.executable, "-m", "coder_eval", *args]
        else:
            python = _system_python()
            assert python is not None
            groups = []
            try:
                groups = ["--groups", str(grp.getgrnam("docker").gr_gid)]
            except KeyError:
                groups = ["--clear-groups"]
            ids = ["--reuid", str(self.uid), "--regid", str(self.uid), *groups]
            argv = [shutil.which("setpriv") or "setpriv", *ids, "--", python, "-c", BOOT, SITE, *args]
        return subprocess.run(
            argv,
            cwd=cwd or self.work,
            env=base,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
        )


@contextmanager
def operator(name: str) -> Iterator[Operator]:
    """A fresh operator of kind `name` with a work directory it owns (removed afterwards)."""
    if name == "user":
        if os.geteuid() != 0:
            pytest.skip("running as an ordinary user needs the tests to start as root")
        if _system_python() is None:
            message = f"no system python{sys.version_info.major}.{sys.version_info.minor} to run as an ordinary user"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
    elif os.geteuid() != 0:
        pytest.skip("this case runs the harness as root")
    work = Path(tempfile.mkdtemp(prefix="ce-security-", dir="/tmp"))
    work.chmod(0o755)
    op = Operator(name, work)
    op.home.mkdir()
    op.own(work)
    try:
        yield op
    finally:
        shutil.rmtree(work, ignore_errors=True)


OPERATORS = ["root", "user"]
DRIVERS = ["bubblewrap", "docker"]
