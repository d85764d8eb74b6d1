"""Per-sandbox Python (uv) and Node (npm) environments."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from coder_eval.models.sandbox import NodeEnv, PythonEnv
from coder_eval.sandbox.templates import SetupError

VENV_DIR = ".venv"


def find_uv() -> str:
    beside = Path(sys.executable).with_name("uv")
    if beside.is_file():
        return str(beside)
    found = shutil.which("uv")
    if found is None:
        raise SetupError("uv is needed for sandbox.python environments but is not installed (pip install uv)")
    return found


def _run(args: list[str], *, cwd: Path, timeout: float, what: str, env: dict[str, str]) -> None:
    try:
        subprocess.run(
            args,
            cwd=cwd,
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.CalledProcessError as exc:
        raise SetupError(f"{what} failed: {(exc.stderr or exc.stdout).strip()[-800:]}") from None
    except subprocess.TimeoutExpired:
        raise SetupError(f"{what} timed out after {timeout:g}s") from None
    except FileNotFoundError as exc:
        raise SetupError(f"{what} failed: {exc}") from None


def create_python_env(spec: PythonEnv, root: Path, *, timeout: float, env: dict[str, str]) -> Path:
    """`uv venv` in <root>/.venv and `uv pip install` the packages; returns the venv's bin dir."""
    uv = find_uv()
    venv = root / VENV_DIR
    python = spec.version or sys.executable
    uv_env = {**env, "UV_NO_PROGRESS": "1"}
    _run([uv, "venv", "--quiet", "--python", python, str(venv)], cwd=root, timeout=timeout, what="uv venv", env=uv_env)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    if spec.env_packages:
        _run(
            [uv, "pip", "install", "--quiet", "--python", str(bin_dir / "python"), *spec.env_packages],
            cwd=root,
            timeout=timeout,
            what=f"installing {', '.join(spec.env_packages)}",
            env=uv_env,
        )
    return bin_dir


def install_node_packages(spec: NodeEnv, root: Path, *, timeout: float, env: dict[str, str]) -> Path | None:
    """npm install the packages into the sandbox; returns node_modules/.bin."""
    if not spec.packages:
        return None
    npm = shutil.which("npm")
    if npm is None:
        raise SetupError("npm is needed for sandbox.node packages but is not installed")
    _run(
        [npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(root), *spec.packages],
        cwd=root,
        timeout=timeout,
        what=f"npm install {' '.join(spec.packages)}",
        env=env,
    )
    return root / "node_modules" / ".bin"
