"""Copy what an agent wrote without expanding sparse files and without copying unbounded bytes.

A file the agent made with `truncate -s 200G` takes no disk space; copied with `shutil.copyfile`
(sendfile), every hole becomes written zeros. `copy_file` copies only a file's data extents
(`SEEK_DATA`/`SEEK_HOLE`), then sets the copy's length, so holes stay holes. What is copied is
counted in a `CopyBudget`: a file with more data than the per-file cap, or one that would take
the copy past its total cap, is left out, and the budget keeps a note saying which and why (the
caller records the notes). A file that grows past its cap while being copied is removed again
and noted the same way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

FILE_CAP_BYTES = 1024**3
"""Data (not holes) one copied file may hold: 1 GiB."""
TOTAL_CAP_BYTES = 8 * 1024**3
"""Data one copy (an export, a workspace) may hold in all: 8 GiB."""
_CHUNK = 8 * 1024 * 1024


def size_text(n: int) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


@dataclass
class CopyBudget:
    """Caps for one copy operation, what it has used, and a note for each file it left out."""

    per_file: int = FILE_CAP_BYTES
    total: int = TOTAL_CAP_BYTES
    used: int = 0
    notes: list[str] = field(default_factory=list)

    def refuse(self, rel: str, data: int, *, what: str = "of data") -> str | None:
        """Why a file of `data` bytes (`what` they are) cannot be copied now, or None when it can."""
        if data > self.per_file:
            return f"{rel}: {size_text(data)} {what}, over the {size_text(self.per_file)} a copied file may hold"
        if self.used + data > self.total:
            return f"{rel}: {size_text(data)} {what} would take the copy over its {size_text(self.total)} in all"
        return None


def data_bytes(fd: int, size: int) -> int:
    """How many bytes of the open file are data rather than holes (the whole size where the file
    system cannot tell)."""
    return sum(end - start for start, end in _extents(fd, size))


def _extents(fd: int, size: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = 0
    try:
        while pos < size:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError as exc:
                if exc.errno == errno.ENXIO:  # only a hole is left
                    break
                raise
            end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
            if end <= start:
                break
            out.append((start, end))
            pos = end
    except (OSError, AttributeError):
        return [(0, size)] if size else []
    return out


def copy_file(src: Path, dst: Path, budget: CopyBudget, rel: str) -> bool:
    """Copy the regular file `src` (not followed if a link) to the new file `dst`, holes kept,
    mode and times kept; False (with a note in `budget`) when it was left out for its size."""
    fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            budget.notes.append(f"{rel}: not a regular file")
            return False
        extents = _extents(fd, info.st_size)
        why = budget.refuse(rel, sum(end - start for start, end in extents))
        if why is not None:
            budget.notes.append(why)
            return False
        out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            budget.used += _copy_extents(fd, out, extents)
            os.ftruncate(out, info.st_size)
        finally:
            os.close(out)
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        shutil.copystat(src, dst, follow_symlinks=False)
    return True


def _copy_extents(src: int, dst: int, extents: list[tuple[int, int]]) -> int:
    copied = 0
    for start, end in extents:
        pos = start
        while pos < end:
            want = min(_CHUNK, end - pos)
            try:
                done = os.copy_file_range(src, dst, want, pos, pos)
            except (OSError, AttributeError):
                data = os.pread(src, want, pos)
                done = os.pwrite(dst, data, pos) if data else 0
            if done <= 0:
                break  # the file shrank: what is there has been copied
            pos += done
            copied += done
    return copied


def move_tree(src: Path, dst: Path, budget: CopyBudget) -> None:
    """Move the directory `src` to `dst` (which must not exist): a rename on one file system; across
    file systems a copy within `budget` (symlinks kept as links, sockets and FIFOs left out and
    noted), then `src` is removed."""
    try:
        os.rename(src, dst)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    dst.mkdir(mode=0o755)
    for root, dirs, files in os.walk(src):
        here = Path(root)
        rel = here.relative_to(src)
        for name in sorted(dirs):
            item = here / name
            if item.is_symlink():
                os.symlink(os.readlink(item), dst / rel / name)
            else:
                (dst / rel / name).mkdir()
        dirs[:] = sorted(d for d in dirs if not (here / d).is_symlink())
        for name in sorted(files):
            item, target = here / name, dst / rel / name
            if item.is_symlink():
                os.symlink(os.readlink(item), target)
            else:
                copy_file(item, target, budget, (rel / name).as_posix())
    for root, dirs, _files in os.walk(dst):
        for name in dirs:
            path = Path(root) / name
            if not path.is_symlink():
                with contextlib.suppress(OSError):
                    shutil.copystat(src / path.relative_to(dst), path, follow_symlinks=False)
    shutil.rmtree(src, ignore_errors=True)
