"""Did-you-mean hints for names a person mistyped."""

from __future__ import annotations

import difflib
from collections.abc import Sequence


def did_you_mean(word: str, options: Sequence[str]) -> str:
    """`did you mean 'x'?` for the closest option, or "" when nothing is close."""
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else ""
