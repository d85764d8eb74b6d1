"""What `TASK_DIR` points at: a read-only copy of the task directory without its reference.

Decision (see docs/sandboxes.md): the agent never gets `TASK_DIR`. `pre_run`, `run_command`
criteria and `post_run` get it, pointing at this copy, made visible by the sandbox for the
duration of those commands only (withdrawn before the agent starts). The copy leaves out the
task's reference directory, symlinks (which could lead anywhere on the host) and the default
ignore patterns (.git, .venv, caches). It is made once per task per process, in a private
temporary directory outside the run directory, files and directories read-only, and removed when
the run ends.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path

from coder_eval.common.ignore import IgnoreRules

_lock = threading.Lock()
_root: Path | None = None


def _views_root() -> Path:
    global _root
    if _root is None or not _root.is_dir():
        _root = Path(tempfile.mkdtemp(prefix="coder-eval-views-"))
    return _root


def _copy(src: Path, dst: Path, hidden: set[Path], ignore: IgnoreRules) -> None:
    for root, dirs, files in os.walk(src):
        here = Path(root)
        rel = here.relative_to(src)
        (dst / rel).mkdir(parents=True, exist_ok=True)
        keep = []
        for d in dirs:
            path = here / d
            if path.is_symlink() or ignore.matches(d) or path.resolve() in hidden:
                continue
            keep.append(d)
        dirs[:] = keep
        for name in files:
            path = here / name
            if path.is_symlink() or not path.is_file() or ignore.matches(name):
                continue
            shutil.copy2(path, dst / rel / name)


def _read_only(root: Path) -> None:
    for here, _dirs, files in os.walk(root, topdown=False):
        for name in files:
            (Path(here) / name).chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        Path(here).chmod(0o555)


_made: dict[tuple[Path, Path | None, Path, str], Path] = {}
"""Views already made, by the arguments (and working directory) they were asked with: every unit of
a dataset asks for the same one, and resolving three paths each time is most of the cost."""


def task_view(task_dir: Path, reference: Path | None, run_dir: Path) -> Path:
    """The read-only copy of `task_dir` minus `reference` (and `run_dir`, if inside), made once per process."""
    asked = (task_dir, reference, run_dir, os.getcwd())
    view = _made.get(asked)
    if view is not None and view.is_dir():
        return view
    view = _make_view(task_dir, reference, run_dir)
    with _lock:
        _made[asked] = view
    return view


def _make_view(task_dir: Path, reference: Path | None, run_dir: Path) -> Path:
    task_dir = task_dir.resolve()
    hidden = {run_dir.resolve()}
    if reference is not None:
        hidden.add(reference.resolve())
    key = hashlib.sha256(f"{task_dir}\0{reference}".encode()).hexdigest()[:16]
    view = _views_root() / key
    with _lock:
        if not view.is_dir():
            partial = view.with_name(key + ".partial")
            if partial.exists():
                shutil.rmtree(partial)
            _copy(task_dir, partial, hidden, IgnoreRules.with_overrides([]))
            _read_only(partial)
            partial.rename(view)
    return view


def remove_views() -> None:
    """Delete every view (their directories are read-only, so make them writable first)."""
    global _root
    with _lock:
        root, _root = _root, None
        _made.clear()
    if root is None or not root.exists():
        return
    for here, _dirs, _files in os.walk(root):
        Path(here).chmod(0o755)
    shutil.rmtree(root, ignore_errors=True)
