"""Complexity similarity: how close two Python sources are in cyclomatic complexity and function count.

Both sources are measured with radon's McCabe visitor. The whole file is treated as one
program: its complexity is ``1 + D`` where ``D`` counts every decision point radon finds
(``if``, loops, boolean operators, ``except`` handlers, comprehensions, ``match`` cases ...)
in module-level code, class bodies, functions, methods and closures alike, so splitting the
same logic into helpers does not change it. The number of functions (methods and closures
included) is measured separately; it is what tells one monolithic function from the same
logic spread over several.

Two counts ``a`` and ``b`` are compared with ``ratio(a, b) = 1 - |a - b| / max(a, b)``
(equivalently ``min / max``; 1.0 when both are 0), and the score is

    0.75 * ratio(complexity) + 0.25 * ratio(function count)

Complexity dominates because it is what the method is named for; two trivial files
(complexity 1, no functions) score 1.0. Python that does not parse scores 0; a file that is
not Python at all falls back to the token method, as the ast method does.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coder_eval.similarity.ast_similarity import UnparseableSourceError, parse_python
from coder_eval.similarity.token_similarity import SimilarityReport, is_python_name, token_fallback

COMPLEXITY_WEIGHT = 0.75
FUNCTION_COUNT_WEIGHT = 0.25


@dataclass(frozen=True)
class ComplexityMeasure:
    """Cyclomatic complexity of a whole file (1 + decision points) and its number of functions."""

    complexity: int
    functions: int


def measure(tree: ast.Module) -> ComplexityMeasure:
    """Measure the whole-file cyclomatic complexity and function count of a parsed module."""
    from radon.visitors import ComplexityVisitor  # imported on first use to keep CLI start-up lean

    visitor = ComplexityVisitor.from_ast(tree)
    decisions = visitor.complexity - 1
    classes = list(visitor.classes)
    functions = list(visitor.functions)
    while classes:
        klass = classes.pop()
        # A class's real complexity is 1 + its body's own decisions + its methods' complexities.
        decisions += klass.real_complexity - 1 - sum(method.complexity for method in klass.methods)
        functions.extend(klass.methods)
        classes.extend(klass.inner_classes)
    count = 0
    while functions:
        function = functions.pop()
        decisions += function.complexity - 1
        count += 1
        functions.extend(function.closures)
    return ComplexityMeasure(decisions + 1, count)


def count_ratio(a: int, b: int) -> float:
    """Similarity of two non-negative counts: 1 - |a - b| / max(a, b), and 1.0 when both are 0."""
    largest = max(a, b)
    return 1.0 - abs(a - b) / largest if largest else 1.0


def _measure_source(source: str, side: str) -> ComplexityMeasure:
    tree = parse_python(source, side)
    try:
        return measure(tree)
    except RecursionError as exc:
        raise UnparseableSourceError(f"{side} source is nested too deeply to measure") from exc


def complexity_similarity(agent_src: str, reference_src: str, *, filename: str = "") -> SimilarityReport:
    """Measure how close the two sources' cyclomatic complexity and function counts are."""
    if not is_python_name(filename):
        reason = f"{filename} is not a Python file"
        return token_fallback("complexity", reason, agent_src, reference_src, filename)
    try:
        agent = _measure_source(agent_src, "agent")
        reference = _measure_source(reference_src, "reference")
    except UnparseableSourceError as exc:
        return SimilarityReport(0.0, f"complexity: {exc}; scored 0")
    complexity = count_ratio(agent.complexity, reference.complexity)
    functions = count_ratio(agent.functions, reference.functions)
    score = COMPLEXITY_WEIGHT * complexity + FUNCTION_COUNT_WEIGHT * functions
    return SimilarityReport(
        score,
        f"complexity: agent {agent.complexity} vs reference {reference.complexity} "
        f"(ratio {complexity:.3f}); functions: agent {agent.functions} vs reference {reference.functions} "
        f"(ratio {functions:.3f}); score {COMPLEXITY_WEIGHT} * {complexity:.3f} + "
        f"{FUNCTION_COUNT_WEIGHT} * {functions:.3f} = {score:.3f}",
    )
