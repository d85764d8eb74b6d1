"""What `TASK_DIR` points at: a read-only copy of the task directory without its reference.

Decision (see docs/sandboxes.md): the agent never gets `TASK_DIR`. `pre_run`, `run_command`
criteria and `post_run` get it, pointing at this copy, made visible by the sandbox for the
duration of those commands only (withdrawn before the agent starts). The copy leaves out the
task's reference directory, run directories (the current one and any earlier one with its plan or
summary), symlinks (which could lead anywhere on the host) and the default ignore patterns (.git,
.venv, caches). It is made once per task per process, in a private temporary directory outside
the run directory, files and directories read-only, and removed when the run ends.

Under bubblewrap and docker each unit is shown its own read-only copy of the view, out of every
other unit's reach. Under tempdir, where a unit runs as the harness's user, units share the view
itself, so it is checked like the reference: what each entry was when the view was made (inode,
size, mode, modification and change times; a change time cannot be set back by an ordinary
process) is kept, and `verify_view` compares before a unit is shown the view and after its
grading; a changed view ends that unit ERROR and the next unit gets a fresh copy.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import stat
import tempfile
import threading
from pathlib import Path

from coder_eval.common.ignore import IgnoreRules
from coder_eval.records.layout import RUN_JSON, RUN_PLAN

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
            if path.is_symlink() or ignore.matches(d) or path.resolve() in hidden or _is_run_dir(path):
                continue
            keep.append(d)
        dirs[:] = keep
        for name in files:
            path = here / name
            if path.is_symlink() or not path.is_file() or ignore.matches(name):
                continue
            shutil.copy2(path, dst / rel / name)


_RUN_MARKERS = (RUN_PLAN, RUN_JSON)


def _is_run_dir(path: Path) -> bool:
    """An earlier run's directory beside the task (its plan or summary at the top): records, never
    task files, and often thousands of them, so the view leaves it out."""
    return any((path / marker).is_file() for marker in _RUN_MARKERS)


def _read_only(root: Path) -> None:
    for here, _dirs, files in os.walk(root, topdown=False):
        for name in files:
            (Path(here) / name).chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        Path(here).chmod(0o555)


class TaskViewTamperedError(Exception):
    """The shared task view changed after it was made (a unit wrote into TASK_DIR)."""


Signature = dict[str, tuple[int, int, int, int, int]]
_signatures: dict[Path, Signature] = {}


def _signature(view: Path) -> Signature:
    out: Signature = {}
    for here, dirs, files in os.walk(view):
        for name in [".", *dirs, *files]:
            path = os.path.join(here, name)
            info = os.lstat(path)
            key = os.path.relpath(path, view)
            out[key] = (info.st_ino, info.st_size, info.st_mode, info.st_mtime_ns, info.st_ctime_ns)
    return out


def verify_view(view: Path) -> None:
    """Raise TaskViewTamperedError (and forget the view, so it is made again) if it changed."""
    expected = _signatures.get(view)
    if expected is None:
        return
    try:
        found = _signature(view)
    except OSError:
        found = {}
    if found != expected:
        changed = sorted(set(found) ^ set(expected) | {k for k in found if k in expected and found[k] != expected[k]})
        _forget(view)
        raise TaskViewTamperedError(f"the shared task view (TASK_DIR) was modified: {', '.join(changed[:5])}")


def _forget(view: Path) -> None:
    """Set a changed view aside (a unit running now may still read it); the next unit gets a new one."""
    with _lock:
        for key in [k for k, v in _made.items() if v == view]:
            del _made[key]
        _signatures.pop(view, None)
        with contextlib.suppress(OSError):
            view.rename(view.with_name(f"{view.name}.changed-{secrets.token_hex(4)}"))


def _writable(root: Path) -> None:
    for here, _dirs, _files in os.walk(root):
        with contextlib.suppress(OSError):
            Path(here).chmod(0o755)


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
            partial.mkdir()  # a task directory that no longer exists (an old run's) gives an empty view
            _copy(task_dir, partial, hidden, IgnoreRules.with_overrides([]))
            _read_only(partial)
            partial.rename(view)
            _signatures[view] = _signature(view)
    return view


def remove_views() -> None:
    """Delete every view (their directories are read-only, so make them writable first)."""
    global _root
    with _lock:
        root, _root = _root, None
        _made.clear()
        _signatures.clear()
    if root is None or not root.exists():
        return
    _writable(root)
    shutil.rmtree(root, ignore_errors=True)
