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
    """`bash -lc "x y"` (or `bash -e -c ...`) -> the tokens of `x y`; anything else unchanged.

    Only a short-option cluster holding `c` introduces the script: a long option such
    as `--norc` merely contains the letter.
    """
    if not tokens or tokens[0] not in _WRAPPERS:
        return tokens
    for i in range(1, len(tokens) - 1):
        option = tokens[i]
        if option.startswith("--") and option != "--":
            continue  # a long option such as --norc or --login
        if not option.startswith("-") or option in ("-", "--"):
            break
        if "c" in option[1:]:
            try:
                return shlex.split(tokens[i + 1])
            except ValueError:
                return [tokens[i + 1]]
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
