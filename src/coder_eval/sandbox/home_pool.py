"""Private homes for tempdir units, emptied and handed to the next unit instead of made anew.

Creating a directory is the most expensive file-system call a short unit makes (on an ext4
volume it measured ~0.3 ms of kernel CPU, against ~0.04 ms for creating a file), and every unit
needs a HOME with a TMPDIR inside it. When a unit finishes, its processes are already killed;
its home is then emptied down to an empty `tmp` and kept for the next unit of the same run.
A home that cannot be shown to be clean (not a real directory any more, another owner, an
entry that will not go) is deleted instead, as before. Spare homes live in the run's scratch
directory, which the run removes when it ends.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path

SPARE_LIMIT = 8
"""Spare homes kept per scratch directory (one per concurrent unit is all a run reuses)."""

_lock = threading.Lock()
_spares: dict[Path, list[Path]] = {}


def take_home(scratch: Path | None) -> Path:
    """An empty private home with an empty `tmp`: a spare one of this scratch directory, or a new one."""
    if scratch is not None:
        with _lock:
            spares = _spares.get(scratch, [])
            taken = spares.pop() if spares else None
        while taken is not None:
            if _still_empty(taken):  # nothing (a leftover process of an earlier unit, say) wrote in since
                return taken
            shutil.rmtree(taken, ignore_errors=True)
            with _lock:
                taken = spares.pop() if spares else None
    home = Path(tempfile.mkdtemp(prefix="home-", dir=scratch))
    (home / "tmp").mkdir(mode=0o700)
    return home


def give_back(home: Path, scratch: Path | None) -> None:
    """Empty a finished unit's home for reuse, or delete it when it cannot be trusted to be clean.

    Only call this once every process of the unit is gone.
    """
    with _lock:
        room = scratch is not None and len(_spares.get(scratch, [])) < SPARE_LIMIT
    if room and scratch is not None and _emptied(home):
        with _lock:
            _spares.setdefault(scratch, []).append(home)
        return
    shutil.rmtree(home, ignore_errors=True)


def _still_empty(home: Path) -> bool:
    try:
        return (
            _is_own_dir(home)
            and _is_own_dir(home / "tmp")
            and os.listdir(home) == ["tmp"]
            and not os.listdir(home / "tmp")
        )
    except OSError:
        return False


def _is_own_dir(path: Path) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()


def _emptied(home: Path) -> bool:
    """Remove everything in `home` but its `tmp`, and everything in `tmp`; False if that did not fully work."""
    if not (_is_own_dir(home) and _is_own_dir(home / "tmp")):
        return False
    try:
        os.chmod(home, 0o700)
        os.chmod(home / "tmp", 0o700)
        for directory in (home, home / "tmp"):
            with os.scandir(directory) as entries:
                for entry in entries:
                    if directory == home and entry.name == "tmp":
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        _remove_tree(entry.path)
                    else:
                        os.unlink(entry.path)
        return not os.listdir(home / "tmp") and os.listdir(home) == ["tmp"]
    except OSError:
        return False


def _remove_tree(path: str) -> None:
    """rmtree that first gives the owner back every directory a unit made unwritable (never following links)."""
    os.chmod(path, 0o700)
    for root, dirs, _ in os.walk(path):
        for name in dirs:
            sub = os.path.join(root, name)
            if stat.S_ISDIR(os.lstat(sub).st_mode):
                os.chmod(sub, 0o700)
    shutil.rmtree(path)
