"""Bounded work for checkers: files read whole only up to a size, regexes with a time limit.

The workspace is the agent's, so a criterion may meet a 1 GB log, a FIFO or a pattern that
backtracks for hours. None of that may take the run down: substring checks stream the file in
chunks (any size, constant memory); whole-file reads refuse files over `MAX_READ_BYTES`; every
regular expression runs with `REGEX_TIMEOUT_SECONDS`. A refusal scores the criterion 0 with a
detail saying why (`UnreadableFileError`, caught by `Criterion.check`).
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Any

import regex

from coder_eval.common.safe_open import open_inside

MAX_READ_BYTES = 32 * 1024 * 1024
"""Largest file a criterion reads whole (JSON, regex, classification, reference comparison)."""
REGEX_TIMEOUT_SECONDS = 5.0
"""Wall-clock limit of one regular-expression search."""
CHUNK_BYTES = 1024 * 1024
ALLOWED_FLAGS = 2 | 4 | 8 | 16 | 32 | 64 | 256
"""The `re` flag bits a task may set: IGNORECASE, LOCALE, MULTILINE, DOTALL, UNICODE, VERBOSE, ASCII."""


class UnreadableFileError(Exception):
    """A file a criterion will not read (too large, not a regular file, pattern too slow)."""


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MiB"


def _not_regular(path: Path) -> str:
    return f"{path.name} is not a regular file (a device, FIFO or socket is not graded)"


def check_regular(path: Path, *, limit: int | None) -> int:
    """The size of `path`, a regular file of at most `limit` bytes; else UnreadableFileError."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise UnreadableFileError(f"{path.name}: cannot read: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise UnreadableFileError(_not_regular(path))
    if limit is not None and info.st_size > limit:
        raise UnreadableFileError(
            f"{path.name} is {info.st_size} bytes, over the {_mib(limit)} a criterion reads whole; "
            "it scores 0 (file_contains streams files of any size)"
        )
    return info.st_size


def open_checked(path: Path, root: Path | None, *, limit: int | None) -> io.BufferedReader:
    """A handle on `path`, a regular file of at most `limit` bytes; with `root` (the workspace)
    it is reached without following links out of it, and the size is checked on what was opened."""
    if root is None:
        check_regular(path, limit=limit)
        return open(path, "rb")
    try:
        handle = open_inside(root.resolve(), path)
    except IsADirectoryError as exc:
        raise UnreadableFileError(_not_regular(path)) from exc
    size = os.fstat(handle.fileno()).st_size
    if limit is not None and size > limit:
        handle.close()
        raise UnreadableFileError(
            f"{path.name} is {size} bytes, over the {_mib(limit)} a criterion reads whole; "
            "it scores 0 (file_contains streams files of any size)"
        )
    return handle


def read_text(path: Path, *, root: Path | None = None, limit: int = MAX_READ_BYTES) -> str:
    """The file decoded as UTF-8 (bad bytes replaced), refusing non-regular or oversized files."""
    with open_checked(path, root, limit=limit) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:  # it grew after the check
        raise UnreadableFileError(f"{path.name} is over the {_mib(limit)} a criterion reads whole; it scores 0")
    return data.decode("utf-8", errors="replace")


def found_substrings(path: Path, needles: list[str], root: Path | None = None) -> set[str]:
    """Which `needles` occur in the file's UTF-8 text, reading it in chunks (memory stays flat).

    One buffer is reused for the whole file (no per-chunk allocation the allocator could keep),
    and the last `longest - 1` bytes carry over so a needle across a chunk boundary is found.
    """
    wanted = {n: n.encode("utf-8") for n in needles}
    overlap = max((len(b) for b in wanted.values()), default=1) - 1
    found: set[str] = {n for n, b in wanted.items() if not b}
    buf = bytearray(overlap + CHUNK_BYTES)
    view = memoryview(buf)
    kept = 0
    with open_checked(path, root, limit=None) as fh:
        while len(found) < len(wanted):
            read = fh.readinto(view[kept:])
            if not read:
                break
            end = kept + read
            found |= {n for n, b in wanted.items() if n not in found and buf.find(b, 0, end) != -1}
            kept = min(overlap, end)
            buf[:kept] = view[end - kept : end]
    view.release()
    return found


def search(pattern: str, text: str, flags: int = 0) -> bool:
    """True when `pattern` occurs in `text`; UnreadableFileError when it runs past the time limit."""
    try:
        return regex.search(pattern, text, flags | regex.VERSION0, timeout=REGEX_TIMEOUT_SECONDS) is not None
    except TimeoutError as exc:
        raise UnreadableFileError(
            f"the pattern {pattern[:80]!r} ran longer than {REGEX_TIMEOUT_SECONDS:g}s (catastrophic backtracking?); "
            "it scores 0"
        ) from exc


def compile_check(pattern: str) -> Any:
    """Compile with the same engine `search` uses (raises regex.error)."""
    return regex.compile(pattern, regex.VERSION0)
