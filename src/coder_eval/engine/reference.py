"""Stage a task's reference solution as a private copy and detect tampering."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from coder_eval.errors import TaskConfigError

if TYPE_CHECKING:
    from coder_eval.loading.loader import LoadedTask


def reference_source(task: LoadedTask) -> Path | None:
    """The task's reference directory, refused (TaskConfigError) when it leads out of the task's
    tree without `sandbox.allow_host_paths` (the same rule `plan` applies)."""
    from coder_eval.models.host_paths import confined

    definition = task.definition
    if definition.reference is None:
        return None
    raw = definition.reference.directory
    _, why = confined(raw, task.task_dir, allow=definition.sandbox.allow_host_paths)
    if why is not None:
        raise TaskConfigError.single(task.source_file, f"reference directory {why}", "reference.directory", "")
    return task.task_dir / raw


class ReferenceTamperedError(Exception):
    """The staged reference changed between staging and grading."""


MAX_REFERENCE_FILES = 20_000
MAX_REFERENCE_BYTES = 512 * 1024 * 1024
"""Bounds of a staged reference: a path that reaches a large host tree is refused, not copied."""


class ReferenceTooLargeError(Exception):
    """The reference directory holds more than a reference solution plausibly does."""


def _copy_without_symlinks(src: Path, dst: Path) -> None:
    files = size = 0
    for here, dirs, names in os.walk(src):
        base = Path(here)
        rel_dir = base.relative_to(src)
        dirs[:] = sorted(d for d in dirs if d != ".git" and not (base / d).is_symlink())
        for d in dirs:
            (dst / rel_dir / d).mkdir(parents=True, exist_ok=True)
        for name in sorted(names):
            item = base / name
            if name == ".git" or item.is_symlink() or not item.is_file():
                continue
            files += 1
            size += item.stat().st_size
            if files > MAX_REFERENCE_FILES or size > MAX_REFERENCE_BYTES:
                raise ReferenceTooLargeError(
                    f"it holds over {MAX_REFERENCE_FILES} files or {MAX_REFERENCE_BYTES // 2**20} MiB"
                )
            shutil.copy2(item, dst / rel_dir / name)


def tree_digest(root: Path) -> str:
    """sha256 over every file's relative path and bytes, in sorted order."""
    h = hashlib.sha256()
    for item in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(item.relative_to(root).as_posix().encode() + b"\0")
        h.update(item.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


@contextmanager
def staged_reference(directory: Path | None, *, task_file: Path) -> Iterator[tuple[Path | None, str | None]]:
    """Yield (private copy, digest) of the reference directory; deleted on exit.

    Symlinks are dropped so a reference cannot pull host files into a place judges read.
    """
    if directory is None:
        yield None, None
        return
    if not directory.is_dir():
        raise TaskConfigError.single(
            task_file,
            f"reference directory {directory} does not exist",
            "reference.directory",
            "the path is relative to the task YAML",
        )
    holder = Path(tempfile.mkdtemp(prefix="coder-eval-ref-"))
    try:
        staged = holder / "reference"
        staged.mkdir()
        try:
            _copy_without_symlinks(directory, staged)
            digest = tree_digest(staged)
        except ReferenceTooLargeError as exc:
            raise TaskConfigError.single(
                task_file,
                f"reference directory {directory} is too large to stage ({exc})",
                "reference.directory",
                "point it at the reference solution's own directory",
            ) from None
        except OSError as exc:  # an unreadable file, or a special tree such as /proc
            raise TaskConfigError.single(
                task_file,
                f"cannot copy reference directory {directory} ({exc.strerror or exc})",
                "reference.directory",
                "point it at an ordinary, readable directory next to the task",
            ) from None
        yield staged, digest
    finally:
        _remove_tree(holder)


def _remove_tree(root: Path) -> None:
    """Delete the staged copy even if its directories were made read-only or unreadable (mode 000).

    rmtree(ignore_errors=True) silently leaves such a tree behind, so restore owner access and retry.
    """
    shutil.rmtree(root, ignore_errors=True)
    if not root.exists():
        return
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            directory.chmod(stat.S_IRWXU)
            pending.extend(p for p in directory.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            continue
    shutil.rmtree(root, ignore_errors=True)


def verify_unchanged(staged: Path | None, digest: str | None) -> None:
    if staged is not None and digest is not None and tree_digest(staged) != digest:
        raise ReferenceTamperedError("the staged reference solution was modified before grading")
