"""The `complexity` method: the reference system's blend of complexity, size and function count.

Each source is measured with radon, as the reference does:

- ``cc``: radon's cyclomatic complexity summed over the blocks `radon.complexity.cc_visit`
  returns (functions, classes and their methods);
- ``loc``: radon's raw line count (`radon.raw.analyze(...).loc`);
- ``functions``: how many of those blocks are functions or methods.

The three are turned into sub-scores with the reference value floored at 1,

    cc_score  = 1 - min(1, agent_cc  / (1.5 * ref_cc))
    loc_score = 1 - min(1, agent_loc / (1.5 * ref_loc))
    fn_score  = 1 - |agent_fn - ref_fn| / max(ref_fn, 1)

and combined as ``0.5 * cc_score + 0.3 * loc_score + 0.2 * fn_score``. The first two reward an
agent file that is *smaller and simpler* than the reference (an identical file scores 1/3 on
each), which is the reference's definition; the total is clamped to [0, 1] (the function term
alone can go below 0) and the details say when it was. Python that does not parse scores 0; a
file that is not Python falls back to the text-token ratio, as the ast method does.
"""

from __future__ import annotations

from dataclasses import dataclass

from coder_eval.similarity.ast_similarity import UnparseableSourceError, parse_python
from coder_eval.similarity.token_similarity import SimilarityReport, is_python_name, text_fallback

CC_WEIGHT, LOC_WEIGHT, FUNCTION_WEIGHT = 0.5, 0.3, 0.2
HEADROOM = 1.5
"""The reference's allowance: an agent value 1.5 times the reference's scores 0."""


@dataclass(frozen=True)
class ComplexityMeasure:
    """radon's figures for one file: summed cyclomatic complexity, raw lines, functions."""

    complexity: int
    loc: int
    functions: int


def measure(source: str) -> ComplexityMeasure:
    """radon's summed complexity, raw line count and function count of `source` (raises on bad Python)."""
    # imported on first use to keep CLI start-up lean
    from radon.complexity import cc_visit
    from radon.raw import analyze
    from radon.visitors import Function

    blocks = cc_visit(source)
    return ComplexityMeasure(
        complexity=sum(block.complexity for block in blocks),
        loc=analyze(source).loc,
        functions=sum(isinstance(block, Function) for block in blocks),
    )


def headroom_score(agent: int, reference: int) -> float:
    """1 - min(1, agent / (1.5 * reference)), the reference value floored at 1."""
    return 1.0 - min(1.0, agent / (HEADROOM * max(reference, 1)))


def function_score(agent: int, reference: int) -> float:
    """1 - |agent - reference| / max(reference, 1) (negative when the agent has many more)."""
    return 1.0 - abs(agent - reference) / max(reference, 1)


def _measure_source(source: str, side: str) -> ComplexityMeasure:
    parse_python(source, side)  # the same parse errors, named the same way, as the ast method
    try:
        return measure(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise UnparseableSourceError(f"{side} source cannot be measured by radon ({type(exc).__name__})") from exc


def complexity_similarity(agent_src: str, reference_src: str, *, filename: str = "") -> SimilarityReport:
    """0.5 * cc + 0.3 * loc + 0.2 * functions, each as the reference system scores it."""
    if not is_python_name(filename):
        return text_fallback("complexity", f"{filename} is not a Python file", agent_src, reference_src)
    try:
        agent = _measure_source(agent_src, "agent")
        reference = _measure_source(reference_src, "reference")
    except UnparseableSourceError as exc:
        return SimilarityReport(0.0, f"complexity: {exc}; scored 0")
    cc = headroom_score(agent.complexity, reference.complexity)
    loc = headroom_score(agent.loc, reference.loc)
    fn = function_score(agent.functions, reference.functions)
    raw = CC_WEIGHT * cc + LOC_WEIGHT * loc + FUNCTION_WEIGHT * fn
    score = max(0.0, min(1.0, raw))
    clamped = "" if score == raw else f" (clamped from {raw:.3f})"
    return SimilarityReport(
        score,
        f"complexity: cc agent {agent.complexity} vs reference {reference.complexity} ({cc:.3f}); "
        f"loc agent {agent.loc} vs reference {reference.loc} ({loc:.3f}); "
        f"functions agent {agent.functions} vs reference {reference.functions} ({fn:.3f}); "
        f"score 0.5 * {cc:.3f} + 0.3 * {loc:.3f} + 0.2 * {fn:.3f} = {score:.3f}{clamped}",
    )
