"""The word rules a Dockerfile rehearsal needs: variable expansion, quotes, and shell commands split at
their separators.

Docker expands `$NAME`, `${NAME}`, `${NAME:-word}` and `${NAME:+word}` in ENV, ARG, WORKDIR, COPY and
ADD (not in RUN, where the shell does it), and removes quotes the way a shell would; a single quote
keeps its content literal. `fragments` splits a shell command at `&&`, `||`, `;`, `|` and line breaks
outside quotes, `$(...)` and backticks, so each simple command can be judged on its own.
"""

from __future__ import annotations

import re

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _braced(text: str, start: int, values: dict[str, str]) -> tuple[str, int]:
    """`${...}` starting at `start` (the `$`): its value and the index after the closing brace."""
    end = text.find("}", start)
    if end < 0:
        return text[start:], len(text)
    body = text[start + 2 : end]
    for op in (":-", ":+"):
        name, sep, word = body.partition(op)
        if sep:
            value = values.get(name, "")
            if op == ":-":
                return (value if value else expand(word, values)), end + 1
            return (expand(word, values) if value else ""), end + 1
    return values.get(body, ""), end + 1


def _dollar(text: str, i: int, values: dict[str, str]) -> tuple[str, int]:
    if text.startswith("${", i):
        return _braced(text, i, values)
    match = _NAME.match(text, i + 1)
    if match is None:
        return "$", i + 1
    return values.get(match.group(0), ""), match.end()


def expand(text: str, values: dict[str, str]) -> str:
    """`text` with its variables replaced and its quotes removed, as Docker reads an instruction's word."""
    out: list[str] = []
    i, quote = 0, ""
    while i < len(text):
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = ""
            else:
                out.append(ch)
            i += 1
        elif ch == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
        elif ch in "'\"" and (not quote or ch == quote):
            quote = "" if quote else ch
            i += 1
        elif ch == "$":
            value, i = _dollar(text, i, values)
            out.append(value)
        else:
            out.append(ch)
            i += 1
    return "".join(out)


_SEPARATORS = ("&&", "||", ";", "|", "\n", "&")


def _fragment_end(text: str, i: int) -> int:
    """Index of the next top-level separator at or after `i` (len(text) when none)."""
    quote, depth = "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch == "\\":
            i += 2
            continue
        elif ch in "'\"`":
            quote = ch
        elif text.startswith("$(", i):
            depth += 1
            i += 2
            continue
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0 and any(text.startswith(sep, i) for sep in _SEPARATORS):
            return i
        i += 1
    return len(text)


def fragments(text: str) -> list[tuple[int, int]]:
    """(start, end) of each simple command of a shell command line, separators left out."""
    spans: list[tuple[int, int]] = []
    i = 0
    while i <= len(text):
        end = _fragment_end(text, i)
        if text[i:end].strip():
            spans.append((i, end))
        if end >= len(text):
            break
        sep = next(s for s in _SEPARATORS if text.startswith(s, end))
        i = end + len(sep)
    return spans


def command_words(fragment: str) -> list[str]:
    """The leading words of a simple command, `VAR=value` assignments and `sudo`/`env` prefixes left out."""
    words = fragment.replace("\\\n", " ").split()
    while words and (words[0] in ("sudo", "env", "exec", "then", "do", "else", "time", "!") or "=" in words[0]):
        words.pop(0)
    return words
