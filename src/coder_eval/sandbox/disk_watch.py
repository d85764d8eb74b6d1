"""Disk a unit fills in its workspace and HOME, bounded by `sandbox.limits.max_disk_mb`.

The workspace and HOME are host directories (the harness grades and keeps them), so no mount
option bounds them. Two things do instead: every process of the unit runs with RLIMIT_FSIZE at
the cap (no single file, sparse or not, can grow past it), and one watcher thread of the harness
sums the blocks the unit's trees really occupy (sparse files count what they hold) every couple
of seconds, and once at the end of the unit. A unit over its cap has its processes killed and
ends ERROR with the measured figure.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

INTERVAL = 2.0
"""Seconds between two measurements of a live unit."""
MAX_ENTRIES = 500_000
"""Files and directories a unit may hold in its workspace and HOME: past this the walk itself (the
harness's time) would be what the unit exhausts, so it counts as over the limit."""


class TooManyFilesError(Exception):
    """The trees hold more entries than a measurement walks."""


def used_bytes(roots: list[Path], stop_after: int | None = None, max_entries: int = MAX_ENTRIES) -> int:
    """Bytes the trees occupy on disk (st_blocks, links not followed; stops once past `stop_after`).

    Raises TooManyFilesError past `max_entries` entries.
    """
    total = entries_seen = 0
    seen: set[tuple[int, int]] = set()
    pending = [str(r) for r in roots]
    while pending:
        try:
            entries = os.scandir(pending.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                entries_seen += 1
                if entries_seen > max_entries:
                    raise TooManyFilesError
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    pending.append(entry.path)
                elif (info.st_dev, info.st_ino) not in seen:
                    if info.st_nlink > 1:
                        seen.add((info.st_dev, info.st_ino))
                    total += info.st_blocks * 512
                if stop_after is not None and total > stop_after:
                    return total
    return total


@dataclass
class Watched:
    roots: list[Path]
    cap: int
    on_exceed: Callable[[str], None]
    breach: str | None = None

    def check(self) -> str | None:
        if self.breach is None:
            try:
                used = used_bytes(self.roots, stop_after=self.cap)
                over = f"over {self.cap // 2**20} MiB (sandbox.limits.max_disk_mb)" if used > self.cap else None
            except TooManyFilesError:
                over = f"over {MAX_ENTRIES:,} files and directories"
            if over is not None:
                held = f"the unit's workspace and HOME hold {over}"
                self.breach = f"disk limit exceeded: {held}; its processes were killed"
                self.on_exceed(self.breach)
        return self.breach


@dataclass
class _Watcher:
    units: dict[int, Watched] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None

    def add(self, watched: Watched) -> int:
        with self.lock:
            key = id(watched)
            self.units[key] = watched
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._loop, name="disk watch", daemon=True)
                self.thread.start()
            return key

    def remove(self, key: int) -> None:
        with self.lock:
            self.units.pop(key, None)

    def _loop(self) -> None:
        while True:
            time.sleep(INTERVAL)
            with self.lock:
                units = list(self.units.values())
            for watched in units:
                try:
                    watched.check()
                except Exception:  # a unit's directory vanishing mid-walk must not stop the watch
                    continue


_WATCHER = _Watcher()


class DiskWatch:
    """One unit's disk cap: watched while it runs, measured once more when it ends."""

    def __init__(self, roots: list[Path], cap_mb: int, on_exceed: Callable[[str], None]) -> None:
        self.watched = Watched(roots, cap_mb * 1024 * 1024, on_exceed)
        self._key = _WATCHER.add(self.watched)

    @property
    def breach(self) -> str | None:
        return self.watched.breach

    def final_check(self) -> str | None:
        _WATCHER.remove(self._key)
        return self.watched.check()
