"""Per-sandbox Python (uv) and Node (npm) environments, created through the sandbox's environment."""

from __future__ import annotations

import os
import sys
from pathlib import Path, PurePosixPath

from coder_eval.common.host_tools import find_host_tool
from coder_eval.models.sandbox import NodeEnv, PythonEnv
from coder_eval.sandbox.environment import Command, SandboxEnvironment
from coder_eval.sandbox.templates import SetupError

VENV_DIR = ".venv"


def find_uv() -> str:
    beside = Path(sys.executable).with_name("uv")
    if beside.is_file():
        return str(beside)
    found = find_host_tool("uv")
    if found is None:
        raise SetupError("uv is needed for sandbox.python environments but is not installed (pip install uv)")
    return found


def uv_cache_dir() -> Path:
    """The harness's uv cache: set-up installs share it (sandboxes have private HOMEs)."""
    if os.environ.get("UV_CACHE_DIR"):
        return Path(os.environ["UV_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "uv"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _run(
    env: SandboxEnvironment,
    argv: list[str],
    *,
    timeout: float,
    what: str,
    extra: dict[str, str],
    cache: Path | None = None,
) -> None:
    try:
        out = env.exec(Command(argv=argv, env=extra, cache_dirs=(cache,) if cache else ()), timeout=timeout)
    except FileNotFoundError as exc:
        raise SetupError(f"{what} failed: {exc}") from None
    if out.timed_out:
        raise SetupError(f"{what} timed out after {timeout:g}s")
    if out.exit_code != 0:
        raise SetupError(f"{what} failed: {(out.stderr or out.stdout).strip()[-800:]}")


def create_python_env(spec: PythonEnv, env: SandboxEnvironment, *, timeout: float) -> Path:
    """`uv venv` in <workspace>/.venv and `uv pip install` the packages; returns the venv's bin dir (host path)."""
    uv = find_uv()
    python = spec.version or env.python
    cache = uv_cache_dir()
    # copy mode: a file linked from the harness's cache would let the unit edit the cache itself
    quiet = {"UV_NO_PROGRESS": "1", "UV_CACHE_DIR": str(cache), "UV_LINK_MODE": "copy"}
    _run(
        env,
        [uv, "venv", "--quiet", "--python", python, VENV_DIR],
        timeout=timeout,
        what="uv venv",
        extra=quiet,
        cache=cache,
    )
    bin_name = "Scripts" if os.name == "nt" else "bin"
    inner_python = str(env.inner_workspace / VENV_DIR / bin_name / "python")
    if spec.env_packages:
        _run(
            env,
            [uv, "pip", "install", "--quiet", "--python", inner_python, *spec.env_packages],
            timeout=timeout,
            what=f"installing {', '.join(spec.env_packages)}",
            extra=quiet,
            cache=cache,
        )
    return env.host_path(PurePosixPath(VENV_DIR) / bin_name)


def install_node_packages(spec: NodeEnv, env: SandboxEnvironment, *, timeout: float) -> Path | None:
    """npm install the packages into the sandbox; returns node_modules/.bin (host path)."""
    packages = spec.specifiers
    if not packages:
        return None
    npm = find_host_tool("npm")
    if npm is None:
        raise SetupError("npm is needed for sandbox.node packages but is not installed")
    argv = [npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(env.inner_workspace), *packages]
    _run(env, argv, timeout=timeout, what=f"npm install {' '.join(packages)}", extra={})
    return env.host_path(PurePosixPath("node_modules/.bin"))
