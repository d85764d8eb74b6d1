"""Write files atomically: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path

from coder_eval.common.secrets import Redactor
from coder_eval.errors import RecordError


def write_text_atomic(path: Path, text: str, *, durable: bool = False, redact: bool = True) -> None:
    """Write `text` to a fresh sibling temp file, then rename it over `path`.

    A crashed or killed writer leaves the old file or the new one, never a mix. With
    `durable` the data is also fsynced first (survives power loss; costs a disk flush).
    The temp file is opened O_EXCL|O_NOFOLLOW so a planted symlink cannot redirect the
    write, and a symlinked destination is refused. Unless `redact` is False, credentials
    (see common/secrets) are redacted first: every record, log and report goes through here.
    """
    data = memoryview((Redactor()(text) if redact else text).encode("utf-8"))

    def write(fd: int) -> None:
        nonlocal data
        while data:  # bare writes: a buffered text file around one write costs more than the write
            data = data[os.write(fd, data) :]

    _replace_atomically(path, write, durable=durable)


def write_chunks_atomic(path: Path, chunks: Iterable[str], *, durable: bool = False, redact: bool = True) -> None:
    """`write_text_atomic` of the text `chunks` join to, written as they come (nothing holds it whole).

    Each chunk is redacted on its own, so a caller cuts them where no credential can straddle
    two: whole rows, whole sections.
    """
    redactor = Redactor() if redact else None

    def write(fd: int) -> None:
        with os.fdopen(os.dup(fd), "w", encoding="utf-8") as fh:
            for chunk in chunks:
                fh.write(redactor(chunk) if redactor is not None else chunk)

    _replace_atomically(path, write, durable=durable)


def _replace_atomically(path: Path, write: Callable[[int], None], *, durable: bool) -> None:
    """Run `write` on a new sibling temp file's descriptor, then rename the file over `path`."""
    if path.is_symlink():
        raise RecordError(f"refusing to write {path}: it is a symlink")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o644)
    try:
        try:
            write(fd)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
