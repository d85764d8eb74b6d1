"""The texts a command pattern is matched against: raw, and with shell wrapping undone."""

from __future__ import annotations

import shlex
from typing import Any

_WRAPPERS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/env"}


def command_text(tool_name: str, parameters: dict[str, Any]) -> str:
    """The command a tool call ran, or its parameters rendered as text for other tools."""
    for key in ("command", "cmd"):
        value = parameters.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return shlex.join(value)
    return " ".join(f"{k}={v}" for k, v in sorted(parameters.items()))


def _unwrap(tokens: list[str]) -> list[str]:
    """`bash -lc "x y"` -> the tokens of `x y`; anything else unchanged."""
    if len(tokens) >= 3 and tokens[0] in _WRAPPERS and tokens[1].startswith("-") and "c" in tokens[1]:
        try:
            return shlex.split(tokens[2])
        except ValueError:
            return [tokens[2]]
    return tokens


def haystacks(text: str) -> list[str]:
    """The raw text plus its shell-normalized form (wrapper stripped, quoting resolved)."""
    out = [text]
    try:
        tokens = _unwrap(shlex.split(text))
    except ValueError:
        return out
    normalized = " ".join(tokens)
    if normalized and normalized != text:
        out.append(normalized)
    return out
