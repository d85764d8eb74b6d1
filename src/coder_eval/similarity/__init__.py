"""Similarity of an agent's source file to a reference file, by structure, tokens or complexity.

`similarity` dispatches to one of three methods, each returning a score in [0, 1] and a
one-line account of what it compared (counts and ratios only, never source text):

- ``ast``: Dice coefficient over normalised AST subtree shapes (`ast_similarity`);
- ``token``: SequenceMatcher ratio over token sequences (`token_similarity`);
- ``complexity``: closeness of cyclomatic complexity and function count (`complexity`).
"""

from __future__ import annotations

from typing import Literal, Protocol

from coder_eval.similarity.ast_similarity import ast_similarity
from coder_eval.similarity.complexity import complexity_similarity
from coder_eval.similarity.token_similarity import SimilarityReport, token_similarity

Method = Literal["ast", "token", "complexity"]


class _MethodFunction(Protocol):
    """The signature every similarity method shares."""

    def __call__(self, agent_src: str, reference_src: str, *, filename: str = "") -> SimilarityReport: ...


_METHODS: dict[Method, _MethodFunction] = {
    "ast": ast_similarity,
    "token": token_similarity,
    "complexity": complexity_similarity,
}

__all__ = ["Method", "SimilarityReport", "similarity"]


def similarity(agent_src: str, reference_src: str, method: Method, *, filename: str = "") -> SimilarityReport:
    """Measure how similar `agent_src` is to `reference_src` by `method`.

    `filename` (the reference's name) decides whether the sources are treated as Python;
    an empty name means "unknown" and Python is tried first.
    """
    return _METHODS[method](agent_src, reference_src, filename=filename)
