"""Did-you-mean hints for names a person mistyped."""

from __future__ import annotations

import difflib
from collections.abc import Sequence


def did_you_mean(word: str, options: Sequence[str]) -> str:
    """`did you mean 'x'?` for the closest option, or "" when nothing is close.

    A word that is the last part of several options (`pattern` beside `command_pattern` and
    `exclude_pattern`) names them all, in order, rather than guessing one."""
    tails = sorted(o for o in options if o.endswith("_" + word))
    if len(tails) > 1:
        return "did you mean " + " or ".join(repr(o) for o in tails) + "?"
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else ""
