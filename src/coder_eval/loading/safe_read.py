"""Read a user-named input file (task YAML, dataset JSONL, prompt file) safely.

Only regular files are read (a FIFO or `/dev/zero` would hang or fill memory), up to a size
far beyond any real input, and as UTF-8; any problem is a TaskConfigError naming the file and
the field that pointed at it, never an internal error.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from coder_eval.errors import TaskConfigError

MAX_INPUT_BYTES = 64 * 1024 * 1024
"""Largest task, dataset or prompt file Coder Eval reads (64 MiB)."""


def read_input_text(path: Path, *, source: Path, field: str = "", what: str = "file") -> str:
    """The UTF-8 text of `path`; `source` is the file reported in errors (the task that names it)."""
    shown = path if source == path else path.name
    try:
        info = os.stat(path)
    except FileNotFoundError:
        message = "file not found" if source == path else f"cannot read {what} {shown} (not found)"
        raise TaskConfigError.single(source, message, field, "paths are relative to the task YAML") from None
    except OSError as exc:
        raise TaskConfigError.single(source, f"cannot read {what} {shown} ({exc.strerror or exc})", field) from None
    if not stat.S_ISREG(info.st_mode):
        raise TaskConfigError.single(
            source, f"{what} {shown} is not a regular file (a directory, device or FIFO)", field, "name a plain file"
        )
    if info.st_size > MAX_INPUT_BYTES:
        raise TaskConfigError.single(
            source,
            f"{what} {shown} is {info.st_size} bytes, over the {MAX_INPUT_BYTES // (1024 * 1024)} MiB limit",
            field,
            "split it into smaller files",
        )
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise TaskConfigError.single(source, f"cannot read {what} {shown} ({exc.strerror or exc})", field) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TaskConfigError.single(
            source,
            f"{what} {shown} is not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line})",
            field,
            "save it as UTF-8",
        ) from None
