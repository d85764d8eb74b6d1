"""Parsed records kept in memory until the file under them changes (size or mtime)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

Stamp = tuple[int, int]


def stamp(path: Path) -> Stamp | None:
    """(mtime in ns, size) of a file, or None when it is missing."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


class FileCache:
    """A bounded LRU of values derived from one file each, dropped when the file changes.

    Reading a 10,000-row run.json takes a moment; the board does it once and serves every page,
    filter and poll from memory until the run writes the file again.
    """

    def __init__(self, capacity: int = 256) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[tuple[str, Path], tuple[Stamp, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, kind: str, path: Path, load: Callable[[Path], Any]) -> Any:
        """The value `load(path)` gave for this version of the file; loads again after a change."""
        current = stamp(path)
        key = (kind, path)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None and hit[0] == current:
                self._entries.move_to_end(key)
                return hit[1]
        value = load(path)
        if current is not None:
            with self._lock:
                self._entries[key] = (current, value)
                self._entries.move_to_end(key)
                while len(self._entries) > self._capacity:
                    self._entries.popitem(last=False)
        return value
