"""User-level installs of the npm agent CLIs: where they live, finding them, installing them.

Each npm-based kind pins its CLI (`NpmPackage`); `coder-eval agents install KIND` installs it
with `npm install --global --prefix <dir>/<kind>` (no sudo, nothing outside the user's data
directory), and the kind's `Binary` looks there before PATH. The root is
`$CODER_EVAL_AGENTS_DIR`, else `$XDG_DATA_HOME/coder-eval/agents` (`~/.local/share/...`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from coder_eval.agents.kind import Binary, NpmPackage

INSTALL_TIMEOUT = 600.0


def agents_dir() -> Path:
    """The root of user-level agent installs."""
    explicit = os.environ.get("CODER_EVAL_AGENTS_DIR")
    if explicit:
        return Path(explicit).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "coder-eval" / "agents"


def prefix_of(package: NpmPackage) -> Path:
    return agents_dir() / package.kind


def installed_path(package: NpmPackage) -> Path | None:
    """The CLI installed by `agents install`, if it is there."""
    path = prefix_of(package) / "bin" / package.bin
    return path if path.is_file() and os.access(path, os.X_OK) else None


def npm_binary(package: NpmPackage) -> Binary:
    """A `Binary` that finds the user-level install first, then PATH."""

    def find() -> str | None:
        found = installed_path(package)
        return str(found) if found is not None else shutil.which(package.bin)

    return Binary(package.bin, find=find, install=f"coder-eval agents install {package.kind}", npm=package)


@dataclass(frozen=True)
class InstallResult:
    kind: str
    path: Path
    already: bool


class InstallError(RuntimeError):
    """npm is missing or the install failed; the message says why and what to do."""


def install(package: NpmPackage, *, force: bool = False) -> InstallResult:
    """Install the pinned CLI into its prefix (a no-op when that exact version is there)."""
    marker = prefix_of(package) / ".coder-eval-version"
    found = installed_path(package)
    if found is not None and not force and marker.is_file() and marker.read_text().strip() == package.spec:
        return InstallResult(package.kind, found, already=True)
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError(
            f"cannot install {package.kind}: npm is not on PATH. Install Node.js 20 or newer "
            "(for example `apt-get install nodejs npm`), then run the command again."
        )
    prefix = prefix_of(package)
    prefix.mkdir(parents=True, exist_ok=True)
    argv = [npm, "install", "--global", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        done = subprocess.run(
            [*argv, package.spec], capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        raise InstallError(f"npm install {package.spec} took over {INSTALL_TIMEOUT:.0f} s and was stopped") from None
    found = installed_path(package)
    if done.returncode != 0 or found is None:
        tail = (done.stderr or done.stdout).strip()[-800:]
        raise InstallError(f"npm install {package.spec} into {prefix} failed (exit {done.returncode}): {tail}")
    marker.write_text(package.spec + "\n", encoding="utf-8")
    return InstallResult(package.kind, found, already=False)


def binary_version(path: str, timeout: float = 15.0) -> str | None:
    """The first line `PATH --version` prints, or None when it will not say."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else None
