"""A JavaScript regular expression (pattern and flags, as `claude plugin eval` graders write them)
turned into the Python one our criteria run, with the same meaning.

What differs between the two engines and is rewritten here: named groups (`(?<n>...)`,
`\\k<n>`), `$` without the `m` flag (the very end in JavaScript; Python's also matches before a
final newline), `\\d` and `\\w` (ASCII in JavaScript, Unicode in Python), `[^]` and `[]`, and
`\\u{...}` escapes. The `y` (sticky) and `v` flags have no counterpart and are refused, as is a
pattern Python cannot compile (a lookbehind of variable width, say); `g`, `d` and `u` change
nothing a grader sees. Left as they are, and documented: `\\b`, `\\s` and case folding, which
follow Python's Unicode rules.
"""

from __future__ import annotations

import re

_FLAG_BITS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}
_NEUTRAL = frozenset("gdu")
_CLASS_SHORTHAND = {"d": "0-9", "w": "A-Za-z0-9_"}
_OUTSIDE_SHORTHAND = {"d": "[0-9]", "w": "[A-Za-z0-9_]", "D": "[^0-9]", "W": "[^A-Za-z0-9_]"}
_NAMED_GROUP = re.compile(r"\(\?<([A-Za-z_][A-Za-z0-9_]*)>")
_BACKREF = re.compile(r"\\k<([A-Za-z_][A-Za-z0-9_]*)>")
_CODE_POINT = re.compile(r"\\u\{([0-9A-Fa-f]{1,6})\}")


class UnsupportedRegexError(ValueError):
    """The pattern or its flags cannot be carried into Python with the same meaning."""


def python_flags(flags: str) -> int:
    out = 0
    for flag in flags:
        if flag in _FLAG_BITS:
            out |= int(_FLAG_BITS[flag])
        elif flag not in _NEUTRAL:
            raise UnsupportedRegexError(f"the JavaScript flag {flag!r} has no Python counterpart")
    return out


def _escape_at(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """The rewrite of the escape at `pattern[i]` (a backslash) and the index after it."""
    if i + 1 >= len(pattern):
        return "\\", i + 1
    nxt = pattern[i + 1]
    backref = _BACKREF.match(pattern, i)
    if backref is not None and not in_class:
        return f"(?P={backref.group(1)})", backref.end()
    point = _CODE_POINT.match(pattern, i)
    if point is not None:
        return f"\\U{int(point.group(1), 16):08x}", point.end()
    if in_class and nxt in _CLASS_SHORTHAND:
        return _CLASS_SHORTHAND[nxt], i + 2
    if not in_class and nxt in _OUTSIDE_SHORTHAND:
        return _OUTSIDE_SHORTHAND[nxt], i + 2
    return pattern[i : i + 2], i + 2


def _translate(pattern: str, multiline: bool) -> str:
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            text, i = _escape_at(pattern, i, in_class)
            out.append(text)
            continue
        if in_class:
            in_class = char != "]"
            out.append(char)
            i += 1
            continue
        if pattern.startswith("[^]", i):
            out.append(r"[\s\S]")
            i += 3
        elif pattern.startswith("[]", i):
            out.append("(?!)")
            i += 2
        elif char == "[":
            in_class = True
            out.append(char)
            i += 1
        elif (named := _NAMED_GROUP.match(pattern, i)) is not None:
            out.append(f"(?P<{named.group(1)}>")
            i = named.end()
        elif char == "$" and not multiline:
            out.append(r"\Z")
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def to_python(pattern: str, flags: str = "") -> tuple[str, int]:
    """(Python pattern, `re` flags) meaning what the JavaScript pattern means; UnsupportedRegexError otherwise."""
    bits = python_flags(flags)
    translated = _translate(pattern, multiline=bool(bits & re.MULTILINE))
    try:
        re.compile(translated, bits)
    except re.error as exc:
        raise UnsupportedRegexError(f"Python cannot compile it ({exc})") from None
    return translated, bits
