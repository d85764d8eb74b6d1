"""The `ast` method: how alike the two sources' sequences of AST node types are.

Each source is parsed and `ast.walk` lists its nodes (breadth first, from the module down); the
sequence of their type names (`Module`, `FunctionDef`, `arguments`, `Return`, `BinOp`, `Name`,
`Load` ...) is what is compared, with `difflib.SequenceMatcher(None, agent, reference).ratio()`
(``2 * M / T``: tokens in matching blocks over the total length, the library's default junk
heuristic left on). This is the figure the reference system computes, so thresholds tuned
there carry over. Identifiers and literal values are not node types, so renaming leaves the
score at 1.0; docstrings and `Load`/`Store` markers are nodes like any other.

Sources that are not Python (by file suffix) or do not parse fall back to the text-token ratio,
and the details say so.
"""

from __future__ import annotations

import ast
import difflib

from coder_eval.similarity.token_similarity import SimilarityReport, is_python_name, text_fallback

# ast.parse signals over-deep nesting with RecursionError or MemoryError (parser stack
# overflow) and, on some Python versions, null bytes with ValueError.
_PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


class UnparseableSourceError(Exception):
    """A source cannot be analysed as Python; the message names the side and line, never the text."""


def parse_python(source: str, side: str) -> ast.Module:
    """The module tree of `source`; raises UnparseableSourceError naming `side` when it does not parse."""
    try:
        return ast.parse(source)
    except _PARSE_ERRORS as exc:
        where = f"line {exc.lineno}" if isinstance(exc, SyntaxError) else type(exc).__name__
        raise UnparseableSourceError(f"{side} source does not parse as Python ({where})") from exc


def node_types(tree: ast.AST) -> list[str]:
    """The type name of every node of `tree`, in `ast.walk` order."""
    return [type(node).__name__ for node in ast.walk(tree)]


def sequence_ratio(agent: list[str], reference: list[str]) -> float:
    """`difflib.SequenceMatcher(None, agent, reference).ratio()`, exactly as the reference computes it."""
    return difflib.SequenceMatcher(None, agent, reference).ratio()


def ast_similarity(agent_src: str, reference_src: str, *, filename: str = "") -> SimilarityReport:
    """Match ratio of the two sources' AST node-type sequences."""
    if not is_python_name(filename):
        return text_fallback("ast", f"{filename} is not a Python file", agent_src, reference_src)
    try:
        agent = node_types(parse_python(agent_src, "agent"))
        reference = node_types(parse_python(reference_src, "reference"))
    except UnparseableSourceError as exc:
        return text_fallback("ast", str(exc), agent_src, reference_src)
    score = sequence_ratio(agent, reference)
    return SimilarityReport(
        score, f"ast: {len(agent)} agent vs {len(reference)} reference nodes; node-type sequence ratio {score:.3f}"
    )
