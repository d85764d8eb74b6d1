"""Whether anything in a directory tree may have changed, asked in microseconds (Linux inotify).

A watch is put on every directory and every file of the tree (on the inode itself, so a write
through another hard link is seen too) for what changes content, metadata or entries: writes, a
file opened for writing being closed, attribute changes (mode, owner, link count, times set
explicitly), creation, deletion, renames. Reads are not watched. `TreeWatch.take()` says whether
any such event arrived since it was last asked. A write through a shared memory mapping shows only
when its file descriptor is closed (at the latest when its process ends), so a caller that must be
sure compares the tree itself whenever the watch saw something, and uses it only to skip that walk.

One inotify instance serves the whole process (instances are few per user). Where inotify is not
available (not Linux, or out of instances or watches) `TreeWatch.start` returns None.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import struct
import sys
import threading
from pathlib import Path

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW = 0x400, 0x800, 0x4000
IN_DONT_FOLLOW, IN_NONBLOCK, IN_CLOEXEC = 0x02000000, 0o4000, 0o2000000
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_DONT_FOLLOW
)
_EVENT = struct.Struct("iIII")


class _Inotify:
    """The process's one inotify instance and which watch belongs to which tree."""

    def __init__(self, libc: ctypes.CDLL, fd: int) -> None:
        self.libc, self.fd = libc, fd
        self.lock = threading.Lock()
        self.owners: dict[int, TreeWatch] = {}

    def add(self, path: str, owner: TreeWatch) -> int:
        wd = int(self.libc.inotify_add_watch(self.fd, os.fsencode(path), MASK))
        if wd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")
        self.owners[wd] = owner
        return wd

    def drain(self) -> None:
        """Mark the trees that events arrived for (called with the lock held)."""
        while True:
            try:
                data = os.read(self.fd, 64 * 1024)
            except BlockingIOError:
                return
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size + length
                if mask & IN_Q_OVERFLOW:  # events were lost: every tree may have changed
                    for owner in self.owners.values():
                        owner.marked = True
                elif wd in self.owners:
                    self.owners[wd].marked = True


_shared: _Inotify | None = None
_init_lock = threading.Lock()


def _instance() -> _Inotify | None:
    global _shared
    with _init_lock:
        if _shared is None and sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
                fd = int(libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC))
                if fd >= 0:
                    _shared = _Inotify(libc, fd)
        return _shared


class TreeWatch:
    """Watches over one tree; `take()` is cheap enough to ask after every unit."""

    def __init__(self, inotify: _Inotify) -> None:
        self._inotify = inotify
        self._wds: list[int] = []
        self.marked = False

    @classmethod
    def start(cls, root: Path) -> TreeWatch | None:
        """Watch every entry under `root` (None where inotify cannot, the watch then left unset)."""
        inotify = _instance()
        if inotify is None:
            return None
        watch = cls(inotify)
        with inotify.lock:
            try:
                for here, dirs, files in os.walk(root):
                    for name in (".", *dirs, *files):
                        watch._wds.append(inotify.add(os.path.join(here, name), watch))
            except OSError:
                watch._remove()
                return None
        return watch

    def take(self) -> bool:
        """Whether anything may have changed since the watch started or was last asked (then forgotten).

        A caller that finds the tree unchanged after a True has lost nothing: events that arrive
        after this call are kept for the next one."""
        with self._inotify.lock:
            self._inotify.drain()
            seen, self.marked = self.marked, False
            return seen

    def close(self) -> None:
        with self._inotify.lock:
            self._remove()

    def _remove(self) -> None:
        for wd in self._wds:
            self._inotify.owners.pop(wd, None)
            self._inotify.libc.inotify_rm_watch(self._inotify.fd, wd)
        self._wds.clear()
