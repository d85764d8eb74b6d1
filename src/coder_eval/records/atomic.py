"""Write files atomically: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable
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
    write_chunks_atomic(path, (text,), durable=durable, redact=redact)


def write_chunks_atomic(path: Path, chunks: Iterable[str], *, durable: bool = False, redact: bool = True) -> None:
    """`write_text_atomic` of the text `chunks` join to, written as they come (nothing holds it whole).

    Each chunk is redacted on its own, so a caller cuts them where no credential can straddle
    two: whole rows, whole sections.
    """
    redactor = Redactor() if redact else None
    if path.is_symlink():
        raise RecordError(f"refusing to write {path}: it is a symlink")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for chunk in chunks:
                fh.write(redactor(chunk) if redactor is not None else chunk)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
