"""Token-level similarity: how much of one token stream can be matched, in order, in the other.

Both sources are cut into tokens -- Python through the standard `tokenize` module with
comments, line breaks and indentation tokens dropped, anything else through a regex that
yields words and single punctuation characters -- and the two sequences are compared with
`difflib.SequenceMatcher(autojunk=False).ratio()`, i.e. ``2 * M / T`` where ``M`` is the
number of tokens in matching blocks and ``T`` the total token count of both sides. Junk
detection is off because code is dominated by a few very frequent tokens (brackets,
commas) that the heuristic would otherwise discard.

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

_SKIPPED = frozenset(
    {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENCODING,
        tokenize.ENDMARKER,
    }
)
_WORD_OR_PUNCT = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class SimilarityReport:
    """How alike two sources are (`score` in [0, 1]) and what was compared to get there."""

    score: float
    details: str


def is_python_name(filename: str) -> bool:
    """True when `filename` is empty (unknown, so try Python) or has a Python suffix."""
    return not filename or PurePath(filename).suffix.lower() in PYTHON_SUFFIXES


def python_tokens(source: str) -> list[str]:
    """Significant Python tokens of `source`; raises tokenize.TokenError or SyntaxError."""
    stream = tokenize.generate_tokens(io.StringIO(source).readline)
    return [tok.string for tok in stream if tok.type not in _SKIPPED]


def text_tokens(source: str) -> list[str]:
    """Words and single punctuation characters of `source`, whitespace dropped."""
    return _WORD_OR_PUNCT.findall(source)


def _tokenize_pair(agent_src: str, reference_src: str, python: bool) -> tuple[list[str], list[str], str]:
    """Both token sequences, cut by the same tokenizer, and a note naming that tokenizer."""
    if python:
        try:
            agent = python_tokens(agent_src)
        except (tokenize.TokenError, SyntaxError):
            failed = "agent"
        else:
            try:
                return agent, python_tokens(reference_src), "python tokenizer"
            except (tokenize.TokenError, SyntaxError):
                failed = "reference"
        note = f"text tokenizer: {failed} source does not tokenize as Python"
    else:
        note = "text tokenizer"
    return text_tokens(agent_src), text_tokens(reference_src), note


def token_similarity(agent_src: str, reference_src: str, *, filename: str = "") -> SimilarityReport:
    """Measure the SequenceMatcher ratio of the two sources' token sequences."""
    agent, reference, tokenizer = _tokenize_pair(agent_src, reference_src, is_python_name(filename))
    score = difflib.SequenceMatcher(None, agent, reference, autojunk=False).ratio()
    return SimilarityReport(
        score,
        f"token: {len(agent)} agent vs {len(reference)} reference tokens ({tokenizer}); "
        f"sequence match ratio {score:.3f}",
    )


def token_fallback(
    method: str,
    reason: str,
    agent_src: str,
    reference_src: str,
    filename: str,
) -> SimilarityReport:
    """The token method's report, labelled as standing in for `method` because of `reason`."""
    token = token_similarity(agent_src, reference_src, filename=filename)
    details = f"{method}: {reason}; fell back to the token method ({token.details})"
    return SimilarityReport(token.score, details)
