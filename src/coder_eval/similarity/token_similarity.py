"""The `token` method: how alike the two sources' sequences of token types are.

Python sources are cut by the standard `tokenize` module and each token is reduced to its type
name (`NAME`, `OP`, `NUMBER`, `STRING`, `NEWLINE`, `INDENT`, `COMMENT`, `ENDMARKER` ...; every
token `tokenize` yields counts). The two sequences are compared with
`difflib.SequenceMatcher(None, agent, reference).ratio()`, the reference system's figure.

A file that is not Python, or a source `tokenize` rejects, is compared as text instead: words
and single punctuation characters, matched by their text with the same ratio. The details name
which comparison was made.

This module also holds the report type and the "is this Python?" test every method shares.
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import PurePath

PYTHON_SUFFIXES = frozenset({".py", ".pyi", ".pyw"})

_WORD_OR_PUNCT = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class SimilarityReport:
    """How alike two sources are (`score` in [0, 1]) and what was compared to get there."""

    score: float
    details: str


def is_python_name(filename: str) -> bool:
    """True when `filename` is empty (unknown, so try Python) or has a Python suffix."""
    return not filename or PurePath(filename).suffix.lower() in PYTHON_SUFFIXES


def token_types(source: str) -> list[str]:
    """The type name of every token `tokenize` yields for `source`; raises tokenize.TokenError or SyntaxError."""
    stream = tokenize.generate_tokens(io.StringIO(source).readline)
    return [tokenize.tok_name[tok.type] for tok in stream]


def text_tokens(source: str) -> list[str]:
    """Words and single punctuation characters of `source`, whitespace dropped."""
    return _WORD_OR_PUNCT.findall(source)


def _ratio(agent: list[str], reference: list[str]) -> float:
    return difflib.SequenceMatcher(None, agent, reference).ratio()


def text_ratio(agent_src: str, reference_src: str) -> SimilarityReport:
    """The ratio of the two sources' text tokens (words and punctuation, by their text)."""
    agent, reference = text_tokens(agent_src), text_tokens(reference_src)
    score = _ratio(agent, reference)
    return SimilarityReport(score, f"{len(agent)} agent vs {len(reference)} reference text tokens; ratio {score:.3f}")


def text_fallback(method: str, reason: str, agent_src: str, reference_src: str) -> SimilarityReport:
    """The text-token ratio, labelled as standing in for `method` because of `reason`."""
    text = text_ratio(agent_src, reference_src)
    return SimilarityReport(text.score, f"{method}: {reason}; compared text tokens instead ({text.details})")


def token_similarity(agent_src: str, reference_src: str, *, filename: str = "") -> SimilarityReport:
    """Match ratio of the two sources' token-type sequences (text tokens for non-Python)."""
    if not is_python_name(filename):
        return text_fallback("token", f"{filename} is not a Python file", agent_src, reference_src)
    sequences: list[list[str]] = []
    for side, source in (("agent", agent_src), ("reference", reference_src)):
        try:
            sequences.append(token_types(source))
        except (tokenize.TokenError, SyntaxError):
            return text_fallback("token", f"{side} source does not tokenize as Python", agent_src, reference_src)
    agent, reference = sequences
    score = _ratio(agent, reference)
    return SimilarityReport(
        score,
        f"token: {len(agent)} agent vs {len(reference)} reference tokens; token-type sequence ratio {score:.3f}",
    )
