"""An append-only spool of items in an anonymous temporary file, read back one at a time.

A long run puts here what it would otherwise hold in memory until its end: each finished unit's
compact record, and the pieces of its report files that are written after a header which needs
figures known only once every row was seen. The file has no name on disk and is gone when the
spool is closed or collected.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from types import TracebackType


class Spool:
    """Byte items appended in order; `get(i)` reads one back, `__iter__` all of them in order."""

    def __init__(self) -> None:
        import tempfile  # imported when first needed: `report` and `aggregate` start faster

        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the spool
        self._offsets = array("Q")
        self._size = 0

    def __len__(self) -> int:
        return len(self._offsets)

    def add(self, item: bytes) -> None:
        self._file.seek(self._size)
        self._file.write(item)
        self._offsets.append(self._size)
        self._size += len(item)

    def get(self, index: int) -> bytes:
        start = self._offsets[index]
        end = self._offsets[index + 1] if index + 1 < len(self._offsets) else self._size
        self._file.seek(start)
        return self._file.read(end - start)

    def __iter__(self) -> Iterator[bytes]:
        for index in range(len(self._offsets)):
            yield self.get(index)

    def clear(self) -> None:
        """Drop every item (the spool is reused from empty)."""
        self._file.seek(0)
        self._file.truncate()
        self._offsets = array("Q")
        self._size = 0

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class TextSpool:
    """A `Spool` of text items (UTF-8)."""

    def __init__(self) -> None:
        self._spool = Spool()

    def __len__(self) -> int:
        return len(self._spool)

    def add(self, text: str) -> None:
        self._spool.add(text.encode("utf-8"))

    def __iter__(self) -> Iterator[str]:
        for item in self._spool:
            yield item.decode("utf-8")

    def clear(self) -> None:
        self._spool.clear()

    def close(self) -> None:
        self._spool.close()

    def __enter__(self) -> TextSpool:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
