"""Stage a task's reference solution as a private copy and detect tampering."""

from __future__ import annotations

import hashlib
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from coder_eval.errors import TaskConfigError


class ReferenceTamperedError(Exception):
    """The staged reference changed between staging and grading."""


def _copy_without_symlinks(src: Path, dst: Path) -> None:
    for item in sorted(src.rglob("*")):
        rel = item.relative_to(src)
        if item.is_symlink() or ".git" in rel.parts:
            continue
        target = dst / rel
        if item.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif item.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(item, target)


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
