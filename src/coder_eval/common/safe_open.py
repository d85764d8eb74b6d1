"""Read a workspace file without following the agent's symlinks out of the workspace.

The path is opened one component at a time from a descriptor of the workspace root, each with
O_NOFOLLOW, so what is checked is what is read (no check-then-use window). A symbolic link met on
the way is followed only while its target stays inside the workspace; one that leads out raises
`PlantedLinkError`, which grades the criterion as failed: the link is the agent's doing, not the
task author's.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import posixpath
import stat
from pathlib import Path

MAX_LINKS = 40


class PlantedLinkError(Exception):
    """A symbolic link in the workspace leads outside it."""


def _walk(root_fd: int, parts: list[str], hops: int) -> int:
    """A descriptor of the file `parts` names under the root descriptor (caller closes it)."""
    done: list[str] = []
    fd = os.dup(root_fd)
    try:
        while parts:
            name = parts.pop(0)
            if name in ("", "."):
                continue
            if name == "..":
                if not done:
                    raise PlantedLinkError("a path leads above the workspace")
                done.pop()
                os.close(fd)
                fd = os.dup(root_fd)
                for part in done:
                    fd = _step(fd, part, directory=True)
                continue
            try:
                nxt = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.EMLINK):
                    raise
                nxt = -1
            if nxt < 0:
                hops += 1
                if hops > MAX_LINKS:
                    raise PlantedLinkError("too many symbolic links") from None
                target = os.readlink(name, dir_fd=fd)
                if target.startswith("/"):
                    raise PlantedLinkError(f"{'/'.join([*done, name])} is a link to {target}, outside the workspace")
                joined = posixpath.normpath(posixpath.join(*done, target) if done else target)
                if joined == ".." or joined.startswith("../"):
                    raise PlantedLinkError(f"{'/'.join([*done, name])} is a link leading outside the workspace")
                os.close(fd)
                fd = os.dup(root_fd)
                parts[:0] = joined.split("/")
                done = []
                continue
            os.close(fd)
            fd = nxt
            done.append(name)
        return fd
    except BaseException:
        os.close(fd)
        raise


def _step(fd: int, name: str, *, directory: bool) -> int:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_DIRECTORY if directory else 0)
    try:
        return os.open(name, flags, dir_fd=fd)
    finally:
        os.close(fd)


def open_inside(root: Path, path: Path) -> io.BufferedReader:
    """An open binary handle on the regular file `path` (absolute, or relative to `root`), reached
    through descriptors from `root`; the caller closes it."""
    rel = os.path.relpath(path, root) if path.is_absolute() else str(path)
    if rel == ".." or rel.startswith("../"):
        raise PlantedLinkError(f"{path} is outside the workspace")
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fd = _walk(root_fd, rel.split("/"), 0)
    finally:
        os.close(root_fd)
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        handle.close()
        raise IsADirectoryError(errno.EISDIR, "not a regular file", str(path))
    return handle


def read_inside(root: Path, path: Path, limit: int | None = None) -> bytes:
    """The bytes of `path` (absolute, or relative to `root`), read through descriptors from `root`."""
    with open_inside(root, path) as handle:
        return handle.read() if limit is None else handle.read(limit)


def write_inside(root: Path, rel: str, data: bytes) -> None:
    """Replace the file `rel` under `root` with `data`, never through a link: every directory on the
    way is opened with O_NOFOLLOW from `root` (missing ones are made), and whatever holds the name
    at the end (a link, a file) is replaced by a new regular file. Raises OSError where a directory
    on the way is not one (a link, a file), so nothing is written outside `root`."""
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise PlantedLinkError(f"{rel!r} is not a path inside the workspace")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in parts[:-1]:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o755, dir_fd=fd)
            fd = _step(fd, name, directory=True)
        tmp = f".{parts[-1]}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
        finally:
            os.close(out)
        try:
            os.replace(tmp, parts[-1], src_dir_fd=fd, dst_dir_fd=fd)
        except OSError:
            os.unlink(tmp, dir_fd=fd)
            raise
    finally:
        os.close(fd)
