"""Scan a unit's preserved artifacts for credentials; hits are reported in its record, files kept.

The artifacts are evidence of what the agent did, so a leaked credential is not edited out of
them: the record names the file and the variable whose value (or which credential shape) was
found, and the operator decides. Bounded: only regular files up to `MAX_FILE_BYTES`, at most
`MAX_TOTAL_BYTES` in all, symlinks never followed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from coder_eval.common.secrets import credential_shapes, secret_values

MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_TOTAL_BYTES = 256 * 1024 * 1024


def _files(root: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):  # os.walk does not follow directory symlinks
        dirnames[:] = [d for d in dirnames if d not in (".venv", "node_modules")]
        found.extend(Path(dirpath) / name for name in filenames)
    return sorted(found)


def scan_artifacts(root: Path | None, env: dict[str, str] | None = None) -> list[str]:
    """`relative/path: NAME` for every file under `root` holding a secret value; [] when none."""
    if root is None or not root.is_dir():
        return []
    needles = {name: value.encode("utf-8") for name, value in secret_values(env).items()}
    hits: list[str] = []
    budget = MAX_TOTAL_BYTES
    for path in _files(root):
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES or info.st_size > budget:
            continue
        budget -= info.st_size
        try:
            data = path.read_bytes()
        except OSError:
            continue
        names = [name for name, value in needles.items() if value in data]
        names += credential_shapes(data.decode("utf-8", errors="replace"))
        rel = path.relative_to(root).as_posix()
        hits.extend(f"{rel}: {name}" for name in sorted(set(names)))
    return hits
