"""Similarity of an agent's source file to a reference file.

`similarity` dispatches to one method, each returning a score in [0, 1] and a one-line account
of what it compared (counts and ratios only, never source text). The first three compute what
the reference system computes, so its thresholds carry over:

- ``ast``: SequenceMatcher ratio of the AST node-type sequences (`ast_similarity`);
- ``token``: SequenceMatcher ratio of the token-type sequences (`token_similarity`);
- ``complexity``: radon's complexity, line count and function count blended (`complexity`);
- ``ast_shape``: Dice coefficient over normalised AST subtree shapes (`ast_shape`), Coder Eval's
  own structural measure.
"""

from __future__ import annotations

from typing import Literal, Protocol

from coder_eval.similarity.ast_shape import ast_shape_similarity
from coder_eval.similarity.ast_similarity import ast_similarity
from coder_eval.similarity.complexity import complexity_similarity
from coder_eval.similarity.token_similarity import SimilarityReport, token_similarity

Method = Literal["ast", "token", "complexity", "ast_shape"]


class _MethodFunction(Protocol):
    """The signature every similarity method shares."""

    def __call__(self, agent_src: str, reference_src: str, *, filename: str = "") -> SimilarityReport: ...


_METHODS: dict[Method, _MethodFunction] = {
    "ast": ast_similarity,
    "token": token_similarity,
    "complexity": complexity_similarity,
    "ast_shape": ast_shape_similarity,
}

__all__ = ["Method", "SimilarityReport", "similarity"]


def similarity(agent_src: str, reference_src: str, method: Method, *, filename: str = "") -> SimilarityReport:
    """Measure how similar `agent_src` is to `reference_src` by `method`.

    `filename` (the reference's name) decides whether the sources are treated as Python;
    an empty name means "unknown" and Python is tried first.
    """
    return _METHODS[method](agent_src, reference_src, filename=filename)
