"""What a bubblewrap unit sees: the system read-only, credential files masked, a read-only root.

Everything but the unit's own directories (workspace, HOME, `/tmp`) is read-only, and so is the
root itself (`--remount-ro /`): a unit cannot replace `/bin` (a link bwrap recreates on its own
root) or add a top-level directory. Programs the harness runs inside are named by their real
paths under the bound system directories, never through such a link.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
MASKED_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers")
MASKED_DIRS = ("/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d", "/etc/docker")
DEFAULT_TMP_MB = 1024


def system_mounts(tmp_mb: int | None = None) -> list[str]:
    """/tmp (a private tmpfs, sized), /proc, /dev, the system directories and /etc, read-only."""
    size = ["--size", str(tmp_mb * 1024 * 1024)] if tmp_mb else []
    args = [*size, "--perms", "1777", "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev"]
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    args += ["--ro-bind", "/etc", "/etc"]
    args += [a for f in MASKED_FILES if os.path.isfile(f) for a in ("--ro-bind", "/dev/null", f)]
    args += [a for d in MASKED_DIRS if os.path.isdir(d) for a in ("--tmpfs", d)]
    return args


def python_dirs() -> list[str]:
    """The harness's interpreter and venv: record_cli shims, set-up tools and agent CLIs run from there."""
    exe = Path(os.path.realpath(sys.executable))
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(exe.parent.parent)}
    return sorted(d for d in dirs if d and not under_system(d))


def under_system(path: str) -> bool:
    return any(path == s or path.startswith(s + "/") for s in SYSTEM_DIRS)


def parent_dirs(paths: list[str]) -> list[str]:
    """`--dir` flags (mode 0755) for every directory bwrap must create above a bound path.

    bwrap copies a created parent's mode from the host, so a venv under `/root` (mode 0700) would
    be unreachable for the unit's uid; the parents it creates hold nothing but the mount points.
    """
    created: dict[str, None] = {}
    bound = set(paths)
    for path in sorted(paths):
        parts = Path(path).parts
        for depth in range(2, len(parts)):
            parent = str(Path(*parts[:depth]))
            if parent in bound or under_system(parent) or parent in ("/etc", "/tmp", "/proc", "/dev"):
                continue
            if any(parent == b or parent.startswith(b + "/") for b in bound):
                continue  # inside another bound tree: it exists there already
            created[parent] = None
    return [a for parent in created for a in ("--perms", "0755", "--dir", parent)]


def read_only_root() -> list[str]:
    """The last mount flag: the sandbox's own root becomes read-only."""
    return ["--remount-ro", "/"]
