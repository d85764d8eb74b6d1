"""The small TOML writer task.toml needs: tables of strings, numbers, booleans and string lists.

The standard library reads TOML (tomllib) but cannot write it; task.toml is flat enough that a
JSON-quoted string is a valid TOML basic string, so a few lines do.
"""

from __future__ import annotations

import json
import math

TomlValue = str | int | float | bool | list[str]


def _value(value: TomlValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"TOML cannot hold {value}")
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def dumps(document: dict[str, dict[str, TomlValue]], *, top: dict[str, TomlValue] | None = None) -> str:
    """Top-level keys, then one [table] per entry; keys whose value is None are left out by the caller."""
    lines = [f"{key} = {_value(value)}" for key, value in (top or {}).items()]
    for table, entries in document.items():
        lines += ["", f"[{table}]", *(f"{key} = {_value(value)}" for key, value in entries.items())]
    return "\n".join(lines).lstrip("\n") + "\n"
