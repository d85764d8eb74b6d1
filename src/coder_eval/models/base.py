"""The strict base every authored schema inherits from."""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict


class StrictModel(BaseModel):
    """Unknown keys are errors: a typo in YAML must never be silently ignored."""

    model_config = ConfigDict(extra="forbid", validate_default=False, defer_build=True)


class RecordModel(BaseModel):
    """Records we write and read back; unknown keys are ignored so newer files still load."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from exc
    return pattern


RegexStr = Annotated[str, AfterValidator(_compiles)]
"""A string that must compile as a Python regular expression."""

_FLAG_BITS = {
    int(re.IGNORECASE): "IGNORECASE",
    int(re.LOCALE): "LOCALE",
    int(re.MULTILINE): "MULTILINE",
    int(re.DOTALL): "DOTALL",
    int(re.UNICODE): "UNICODE",
    int(re.VERBOSE): "VERBOSE",
    int(re.ASCII): "ASCII",
}


def _flags(value: int) -> int:
    unknown = value & ~sum(_FLAG_BITS)
    if unknown:
        names = ", ".join(f"{bit} {name}" for bit, name in _FLAG_BITS.items())
        raise ValueError(f"{value} sets flag bits that are not `re` flags ({unknown}); use a sum of: {names}")
    return value


RegexFlags = Annotated[int, AfterValidator(_flags)]
"""`re` flags as an integer: only the documented bits, so grading never meets an impossible flag."""

IDENTIFIER_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


MAX_ID_LENGTH = 100
"""Longest task, variant or row id: each names a directory, and file names are bounded."""


def _identifier(value: str) -> str:
    if len(value) > MAX_ID_LENGTH:
        raise ValueError(f"is {len(value)} characters long; at most {MAX_ID_LENGTH} (it becomes a directory name)")
    if not IDENTIFIER_RE.fullmatch(value):
        raise ValueError(
            f"{value!r} must use letters, digits, '_', '-', '.' and not start with '.' or '-' "
            "(it becomes a directory name)"
        )
    return value


Identifier = Annotated[str, AfterValidator(_identifier)]
"""An id that is safe to use as a directory name."""


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


NonBlank = Annotated[str, AfterValidator(_non_blank)]


def escapes_root(value: str) -> bool:
    """True when a path meant to stay under a root could leave it.

    Absolute POSIX paths, Windows drive or UNC paths (`C:/x`, `C:x`, `//host/share`) and any
    `..` segment all count, whichever OS validates the task.
    """
    posix = PurePosixPath(value.replace("\\", "/"))
    return posix.is_absolute() or bool(PureWindowsPath(value).drive) or ".." in posix.parts
