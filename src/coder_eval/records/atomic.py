"""Write files atomically: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import os
import secrets
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
    if redact:
        text = Redactor()(text)
    if path.is_symlink():
        raise RecordError(f"refusing to write {path}: it is a symlink")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    data = memoryview(text.encode("utf-8"))
    fd = os.open(tmp, flags, 0o644)
    try:
        try:
            while data:  # bare writes: a buffered text file around one write costs more than the write
                data = data[os.write(fd, data) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
