"""Values derived from objects that many units share (a dataset's one task definition, one agent config).

The rows of a dataset share their validated definition and agent, so what each unit derives from
them (their JSON form, their digests) is the same for every row; computing it once per run rather
than once per row is a measurable part of the per-row floor. Entries are keyed by the objects'
identities and hold the objects themselves, so an id cannot be reused by another object while its
entry lives; the cache is small and simply starts over when full. Cached values are shared:
callers must treat them as read-only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class SharedDerived(Generic[V]):
    """`get(objects..., compute=...)`: the value for these exact objects, computed on first use."""

    def __init__(self, limit: int = 64) -> None:
        self._limit = limit
        self._entries: dict[tuple[int, ...], tuple[tuple[object, ...], V]] = {}
        self._lock = threading.Lock()

    def get(self, *objects: object, compute: Callable[[], V]) -> V:
        key = tuple(id(o) for o in objects)
        with self._lock:
            hit = self._entries.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], objects, strict=True)):
            return hit[1]
        value = compute()
        with self._lock:
            if len(self._entries) >= self._limit:
                self._entries.clear()
            self._entries[key] = (objects, value)
        return value
