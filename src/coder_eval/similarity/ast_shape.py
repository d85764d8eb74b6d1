"""The `ast_shape` method: the Dice coefficient of the two sources' bags of AST subtree shapes.

This was Coder Eval's own `ast` method before `ast` took the reference system's definition; it is
kept under its own name because it is less sensitive to reordering and nesting.

Normalisation. Each AST node is reduced to its type name (``FunctionDef``, ``For``,
``BinOp``, ``Add`` ...) plus its child nodes in order. Identifiers, attribute names and
literal values are plain fields rather than child nodes, so they vanish; docstrings and the
``Load``/``Store``/``Del`` context markers are dropped explicitly. Renaming variables or
changing constants therefore leaves the normalised tree unchanged.

Comparison. Every internal node (one that still has children after normalisation) adds the
shape of the subtree rooted at it to a multiset; equal shapes share one id. The score is the
Dice coefficient of the two multisets, ``2 * |A & B| / (|A| + |B|)`` with multiset
intersection -- the ``2S / (2S + L + R)`` similarity Baxter et al. use for AST clone
detection. Leaves are left out of the bags: once names and values are gone, every variable
reference is the same ``Name`` leaf, so leaves would match between any two programs and lift
unrelated pairs to around 0.3; they still count through the shapes of their parents.

Consequences: identical or consistently renamed code scores 1.0; reordering top-level
functions alters only the module's own shape, so it stays close to 1.0; unrelated programs
share few internal shapes and score near 0. An edit deep inside a function changes the shapes
of its ancestors only, so the penalty follows nesting depth, not function size.

Sources that are not Python (by file suffix) or do not parse fall back to the text-token ratio,
and the details say so.
"""

from __future__ import annotations

import ast
from collections import Counter

from coder_eval.similarity.ast_similarity import UnparseableSourceError, parse_python
from coder_eval.similarity.token_similarity import SimilarityReport, is_python_name, text_fallback

_DOCSTRING_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)

ShapeTable = dict[tuple[str, tuple[int, ...]], int]


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _children(node: ast.AST) -> list[ast.AST]:
    """Child nodes that carry structure: context markers and a leading docstring are skipped."""
    docstring: ast.AST | None = None
    if isinstance(node, _DOCSTRING_OWNERS) and node.body and _is_docstring(node.body[0]):
        docstring = node.body[0]
    return [
        child
        for child in ast.iter_child_nodes(node)
        if child is not docstring and not isinstance(child, ast.expr_context)
    ]


def shape_bag(tree: ast.AST, table: ShapeTable) -> Counter[int]:
    """Multiset of subtree-shape ids, one per internal node of the normalised `tree`.

    `table` interns shapes so that ids are comparable across trees sharing it. The walk is
    iterative (post-order) so deeply nested code cannot exhaust the interpreter stack.
    """
    bag: Counter[int] = Counter()
    finished: list[int] = []  # shapes of completed subtrees, in order, awaiting their parent
    stack: list[tuple[ast.AST, list[ast.AST] | None]] = [(tree, None)]
    while stack:
        node, children = stack.pop()
        if children is None:
            children = _children(node)
            stack.append((node, children))
            stack.extend((child, None) for child in reversed(children))
            continue
        # Child nodes can be shared objects (CPython reuses operator singletons such as Add),
        # so children are matched by position on this stack, never by identity.
        split = len(finished) - len(children)
        key = (type(node).__name__, tuple(finished[split:]))
        del finished[split:]
        shape = table.setdefault(key, len(table))
        finished.append(shape)
        if children:
            bag[shape] += 1
    return bag


def ast_shape_similarity(agent_src: str, reference_src: str, *, filename: str = "") -> SimilarityReport:
    """Measure how much normalised AST structure the two Python sources share (Dice over subtrees)."""
    if not is_python_name(filename):
        return text_fallback("ast_shape", f"{filename} is not a Python file", agent_src, reference_src)
    try:
        agent_tree = parse_python(agent_src, "agent")
        reference_tree = parse_python(reference_src, "reference")
    except UnparseableSourceError as exc:
        return text_fallback("ast_shape", str(exc), agent_src, reference_src)
    table: ShapeTable = {}
    agent_bag, reference_bag = shape_bag(agent_tree, table), shape_bag(reference_tree, table)
    shared = (agent_bag & reference_bag).total()
    total = agent_bag.total() + reference_bag.total()
    score = 2 * shared / total if total else 1.0
    return SimilarityReport(
        score,
        f"ast_shape: {agent_bag.total()} agent vs {reference_bag.total()} reference subtree shapes, "
        f"{shared} shared; Dice {score:.3f}",
    )
