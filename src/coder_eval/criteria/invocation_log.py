"""Read a JSON Lines log of recorded CLI invocations, refusing any record it cannot read.

A record that fails to parse could be exactly the call a negative guard forbids, so
one bad line makes the whole log unusable instead of being skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from coder_eval.common.safe_open import read_inside

_JSON_TYPE_NAMES: dict[type, str] = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


MAX_LOG_BYTES = 32 * 1024 * 1024
"""Largest invocation log read; a longer one is unusable (a guard over a partial log could pass)."""


FAILED_WRITE_SUFFIXES = (".unrecorded", ".error")
"""Markers a recorder in the workspace leaves beside its log when it could not append to it: the shims
Coder Eval wrote before its recorder moved into the harness (`<log>.unrecorded`, old runs) and the
reference system's (`<log>.error`). The harness's own recorder says so in task.log instead."""
_MARKER_PREVIEW = 300


def failed_write_marker(path: Path, root: Path | None = None) -> str | None:
    """Why the log at `path` cannot be trusted, when a recorder left a failed-write marker beside it."""
    for suffix in FAILED_WRITE_SUFFIXES:
        marker = path.with_name(path.name + suffix)
        if not marker.exists() and not marker.is_symlink():
            continue
        try:
            if root is None:
                with open(marker, "rb") as fh:
                    data = fh.read(_MARKER_PREVIEW)
            else:
                data = read_inside(root.resolve(), marker, _MARKER_PREVIEW)
            said = data[:_MARKER_PREVIEW].decode("utf-8", errors="replace").strip()
        except OSError:
            said = ""
        because = f" ({said})" if said else ""
        return f"a recorder reported a failed write to {path.name}: {marker.name} is beside it{because}"
    return None


class InvocationLogError(Exception):
    """The log cannot be trusted: the file is unreadable or one of its lines is malformed."""


@dataclass(frozen=True)
class Invocation:
    """One recorded call: the log line it came from, its argv, and the optional tool and exit code."""

    line: int
    argv: tuple[str, ...]
    tool: str | None = None
    exit_code: int | None = None


def read_invocations(path: Path, root: Path | None = None) -> list[Invocation]:
    """Every invocation recorded in the log at `path`; raises InvocationLogError if any is unreadable.

    With `root` (the workspace) the log is read without following links out of it.
    """
    try:
        if root is None:
            with open(path, "rb") as fh:
                data = fh.read(MAX_LOG_BYTES + 1)
        else:
            data = read_inside(root.resolve(), path, MAX_LOG_BYTES + 1)
    except OSError as exc:
        raise InvocationLogError(f"cannot read the file: {exc.strerror or exc}") from exc
    if len(data) > MAX_LOG_BYTES:
        raise InvocationLogError(f"it is over {MAX_LOG_BYTES // (1024 * 1024)} MiB, more than a log is read")
    return parse_invocations(data)


def parse_invocations(data: bytes) -> list[Invocation]:
    """Parse JSON Lines bytes into invocations, skipping blank lines; line numbers count from 1.

    Splitting the raw bytes (not decoded text) means only CR/LF end a line, so a
    Unicode line separator inside a JSON string cannot cut a record in two.
    """
    return [_parse_line(number, raw) for number, raw in enumerate(data.splitlines(), start=1) if raw.strip()]


def _parse_line(number: int, raw: bytes) -> Invocation:
    """One record; `argv` is required, `tool` must be a string when given, other keys are ignored."""
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvocationLogError(f"line {number} is not valid UTF-8 ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise InvocationLogError(f"line {number} is not valid JSON ({exc.msg})") from exc
    if not isinstance(record, dict):
        raise InvocationLogError(f"line {number} is {_json_type(record)}, not a JSON object")
    argv = record.get("argv")
    if not isinstance(argv, list) or not all(isinstance(arg, str) for arg in argv):
        if "argv" not in record:
            found = "no argv key"
        elif isinstance(argv, list):
            found = "an array with a non-string element"
        else:
            found = _json_type(argv)
        raise InvocationLogError(f"line {number}: `argv` must be a list of strings (found {found})")
    tool = record.get("tool")
    if tool is not None and not isinstance(tool, str):
        raise InvocationLogError(f"line {number}: `tool` must be a string (found {_json_type(tool)})")
    exit_code = record.get("exit")
    if not isinstance(exit_code, int) or isinstance(exit_code, bool):
        exit_code = None
    return Invocation(number, tuple(argv), tool, exit_code)


def _json_type(value: object) -> str:
    """How JSON would name the type of a decoded value, for error messages."""
    return _JSON_TYPE_NAMES.get(type(value), "an object")
