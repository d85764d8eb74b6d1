"""Starting the local harness for one unit: its launcher, its private home, the shared encoder cache.

The SDK starts the harness binary itself, with the SDK process's whole environment merged in.
So the SDK is pointed (ANTIGRAVITY_HARNESS_PATH) at a launcher script that notes its pid,
leads a new session (one signal ends the harness and every command it ran) and `exec`s the
sandbox's launch line under `env -i` with exactly the variables the engine built.

The harness writes a large media encoder into `$HOME/.gemini/antigravity/bin` on start; every
unit's HOME links that directory to one cache per process, so it is written once per run and
never lands in a unit's files.
"""

from __future__ import annotations

import atexit
import shlex
import shutil
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coder_eval.sandbox.environment import SandboxEnvironment

_LAUNCHER = """#!/bin/sh
echo $$ > {pidfile}
if command -v setsid >/dev/null 2>&1; then exec setsid env -i {env} {argv}; fi
exec env -i {env} {argv}
"""


@cache
def encoder_cache() -> Path:
    """This process's directory for the harness's encoder (removed when the process exits)."""
    from coder_eval.agents.jsonl_cli import private_dir

    path = Path(private_dir("antigravity-bin-"))
    atexit.register(shutil.rmtree, path, True)
    return path


def make_home(root: Path, *, shared_cache: bool = True) -> Path:
    """A private HOME whose encoder directory is the shared cache (or its own, when the harness
    runs where the host's cache is not visible, as inside bubblewrap or a container)."""
    home = root / "home"
    target = home / ".gemini" / "antigravity"
    target.mkdir(parents=True, exist_ok=True)
    link = target / "bin"
    if shared_cache and not link.exists():
        link.symlink_to(encoder_cache(), target_is_directory=True)
    return home


def sees_host_paths(sandbox: SandboxEnvironment) -> bool:
    """True when processes in `sandbox` see host directories at their own paths (tempdir)."""
    probe = encoder_cache()
    try:
        return str(sandbox.share(probe, "antigravity-probe")) == str(probe)
    finally:
        sandbox.unshare("antigravity-probe")


def scratch_root(parent: Path | None = None) -> Path:
    """A private directory for one unit (launcher, home, saved conversation), under `parent`."""
    from coder_eval.agents.jsonl_cli import private_dir

    return Path(private_dir("antigravity-", parent))


def write_launcher(root: Path, argv: list[str], env: Mapping[str, str]) -> tuple[Path, Path]:
    """The script the SDK runs as "the harness", and the file where it writes its pid."""
    launcher, pidfile = root / "localharness-launch", root / "localharness.pid"
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    text = _LAUNCHER.format(
        pidfile=shlex.quote(str(pidfile)), env=assignments, argv=" ".join(shlex.quote(a) for a in argv)
    )
    launcher.write_text(text, encoding="utf-8")
    launcher.chmod(0o700)
    return launcher, pidfile


def remove(root: Path | None) -> None:
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)


__all__ = ["encoder_cache", "make_home", "remove", "scratch_root", "sees_host_paths", "write_launcher"]
