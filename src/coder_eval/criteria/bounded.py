"""Bounded work for checkers: every file read capped in bytes and by the unit's deadline, regexes timed.

The workspace is the agent's, so a criterion may meet a 1 GB log, a 200 GB sparse file, a FIFO or
a pattern that backtracks for hours. None of that may take the run down or outlive the unit:

- substring checks stream the file in chunks (constant memory) up to `MAX_SCAN_BYTES`;
- whole-file reads (regex, JSON, labels, similarity) stop at `MAX_READ_BYTES`;
- a criterion with a `max_bytes` field sets its own cap;
- a read given the unit's `Deadline` stops when it passes (checked between chunks);
- every regular expression runs with `REGEX_TIMEOUT_SECONDS`.

A file over its cap is refused from its size before a byte is read (a sparse file costs nothing)
and again if it grows while being read. A refusal fails the criterion with a detail that says
so (`UnreadableFileError`, caught by `Criterion.check`): never a partial read that passes.
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Any

import regex

from coder_eval.common.safe_open import open_inside
from coder_eval.models.criteria_files import READ_LIMIT_BYTES, SCAN_LIMIT_BYTES
from coder_eval.sandbox.deadline import Deadline

MAX_READ_BYTES = READ_LIMIT_BYTES
"""Largest file a criterion reads whole (JSON, regex, classification, reference comparison)."""
MAX_SCAN_BYTES = SCAN_LIMIT_BYTES
"""Largest file a substring check streams (file_contains, file_check's includes and excludes)."""
REGEX_TIMEOUT_SECONDS = 5.0
"""Wall-clock limit of one regular-expression search."""
CHUNK_BYTES = 1024 * 1024
ALLOWED_FLAGS = 2 | 4 | 8 | 16 | 32 | 64 | 256
"""The `re` flag bits a task may set: IGNORECASE, LOCALE, MULTILINE, DOTALL, UNICODE, VERBOSE, ASCII."""


class UnreadableFileError(Exception):
    """A file a criterion will not read (too large, not a regular file, pattern too slow)."""


def _mib(n: int) -> str:
    if n >= 1024**3 and n % 1024**3 == 0:
        return f"{n // 1024**3} GiB"
    return f"{n / (1024 * 1024):.0f} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def _too_large(path: Path, size: int | None, limit: int) -> UnreadableFileError:
    found = f"is {size} bytes," if size is not None else "grew while it was read and is"
    return UnreadableFileError(
        f"{path.name} {found} over the {_mib(limit)} this criterion reads; the criterion fails "
        "(a task that means to grade larger files sets the criterion's max_bytes)"
    )


def check_deadline(deadline: Deadline | None, path: Path) -> None:
    """UnreadableFileError once the unit's deadline has passed: no read outlives the unit."""
    if deadline is not None and deadline.expired:
        raise UnreadableFileError(f"the unit's deadline passed while {path.name} was being read; the criterion fails")


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
        raise _too_large(path, info.st_size, limit)
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
        raise _too_large(path, size, limit)
    return handle


def read_text(
    path: Path, *, root: Path | None = None, limit: int | None = None, deadline: Deadline | None = None
) -> str:
    """The file decoded as UTF-8 (bad bytes replaced), refusing non-regular files and files over
    `limit` bytes (default `MAX_READ_BYTES`); read in chunks, each after a look at `deadline`."""
    cap = MAX_READ_BYTES if limit is None else limit
    check_deadline(deadline, path)
    parts: list[bytes] = []
    got = 0
    with open_checked(path, root, limit=cap) as fh:
        while chunk := fh.read(min(CHUNK_BYTES * 8, cap + 1 - got)):
            got += len(chunk)
            if got > cap:  # it grew after the check
                raise _too_large(path, None, cap)
            parts.append(chunk)
            check_deadline(deadline, path)
    return b"".join(parts).decode("utf-8", errors="replace")


def found_substrings(
    path: Path,
    needles: list[str],
    root: Path | None = None,
    *,
    limit: int | None = None,
    deadline: Deadline | None = None,
) -> set[str]:
    """Which `needles` occur in the file's UTF-8 text, reading it in chunks (memory stays flat).

    A file over `limit` bytes (default `MAX_SCAN_BYTES`) is refused, as is one that grows past it
    while being read; the read stops with UnreadableFileError once `deadline` has passed. One
    buffer is reused for the whole file (no per-chunk allocation the allocator could keep), and
    the last `longest - 1` bytes carry over so a needle across a chunk boundary is found.
    """
    cap = MAX_SCAN_BYTES if limit is None else limit
    wanted = {n: n.encode("utf-8") for n in needles}
    overlap = max((len(b) for b in wanted.values()), default=1) - 1
    found: set[str] = {n for n, b in wanted.items() if not b}
    buf = bytearray(overlap + CHUNK_BYTES)
    view = memoryview(buf)
    kept = total = 0
    try:
        with open_checked(path, root, limit=cap) as fh:
            while len(found) < len(wanted):
                check_deadline(deadline, path)
                read = fh.readinto(view[kept:])
                if not read:
                    break
                total += read
                if total > cap:
                    raise _too_large(path, None, cap)
                end = kept + read
                found |= {n for n, b in wanted.items() if n not in found and buf.find(b, 0, end) != -1}
                kept = min(overlap, end)
                buf[:kept] = view[end - kept : end]
    finally:
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


def count_matches(pattern: str, text: str, flags: int = 0) -> int:
    """Non-overlapping matches of `pattern` in `text`; UnreadableFileError past the time limit."""
    try:
        return sum(1 for _ in regex.finditer(pattern, text, flags | regex.VERSION0, timeout=REGEX_TIMEOUT_SECONDS))
    except TimeoutError as exc:
        raise UnreadableFileError(
            f"the pattern {pattern[:80]!r} ran longer than {REGEX_TIMEOUT_SECONDS:g}s (catastrophic backtracking?); "
            "it scores 0"
        ) from exc
