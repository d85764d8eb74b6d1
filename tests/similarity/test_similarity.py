"""Similarity methods: ast, token and complexity as the reference system computes them, plus ast_shape."""

from __future__ import annotations

import pytest

from coder_eval.similarity import similarity
from coder_eval.similarity.ast_shape import ast_shape_similarity
from coder_eval.similarity.ast_similarity import ast_similarity, node_types
from coder_eval.similarity.complexity import complexity_similarity, function_score, headroom_score, measure
from coder_eval.similarity.token_similarity import text_tokens, token_similarity, token_types

METHODS = ("ast", "token", "complexity", "ast_shape")

MEAN = '''
def mean(values):
    """Average of the values, 0.0 when there are none."""
    total = 0
    for v in values:  # accumulate
        total += v
    return total / len(values) if values else 0.0


def top(items, n=3):
    return sorted(items, reverse=True)[:n]
'''

MEAN_RENAMED = """
def average(xs):
    s = 0
    for item in xs:
        s += item
    return s / len(xs) if xs else 0.0


def best(seq, k=5):
    return sorted(seq, reverse=False)[:k]
"""

MEAN_REORDERED = """
def top(items, n=3):
    return sorted(items, reverse=True)[:n]


def mean(values):
    total = 0
    for v in values:
        total += v
    return total / len(values) if values else 0.0
"""

STACK = """
class Stack:
    def __init__(self):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def pop(self):
        if not self._items:
            raise IndexError("pop from an empty stack")
        return self._items.pop()
"""

SCRIPT = """
import sys

with open(sys.argv[1]) as fh:
    for line in fh:
        print(line.strip().upper())
"""

JS = "function add(a, b) {\n  // sum\n  return a + b;\n}\n"
ONE_IF = "def sign(x):\n    if x < 0:\n        return -1\n    return 1\n"  # radon: cc 2, loc 4, 1 function
LOOP_IF = "def f(xs):\n    t = 0\n    for x in xs:\n        if x:\n            t += x\n    return t\n"  # cc 3, loc 6
THREE_DEFS = "def a():\n    pass\ndef b():\n    pass\ndef c():\n    pass\n"  # cc 3, loc 6, 3 functions


def score(agent: str, reference: str, method: str, filename: str = "solution.py") -> float:
    return similarity(agent, reference, method, filename=filename).score  # type: ignore[arg-type]


# Each figure below is worked out by hand from the definition (the comment shows the working),
# not read back from the implementation. ratio = 2 * M / T (M matched items, T both lengths).
REFERENCE_FIGURES = [
    # ast: Module FunctionDef arguments Return arg BinOp Name Add|Mult Constant Load; 9 of 10 match
    ("ast", "def f(a):\n    return a + 1\n", "def g(b):\n    return b * 2\n", 18 / 20),
    # ast: [Module Assign Name Constant Store] vs [Module Assign Assign Name Constant Name Constant Store
    # Store]: blocks "Module Assign", "Name Constant", "Store" -> M 5, T 14
    ("ast", "x = 1\n", "x = 1\ny = 2\n", 10 / 14),
    ("ast", "x = 1\n", "y = 2\n", 1.0),  # names and values are not node types
    ("ast", "", "", 1.0),  # [Module] vs [Module]
    # token: NAME OP NUMBER NEWLINE ENDMARKER vs NAME OP STRING NEWLINE ENDMARKER -> M 4, T 10
    ("token", "x = 1\n", "x = 'a'\n", 8 / 10),
    # token: the comment is a COMMENT token like any other -> M 5, T 11
    ("token", "x = 1\n", "x = 1  # c\n", 10 / 11),
    ("token", "def f(a): return a\n", "def g(b): return b\n", 1.0),
    # complexity, identical: cc 1 - 2/3, loc 1 - 4/6, functions 1 -> 0.5/3 + 0.3/3 + 0.2
    ("complexity", ONE_IF, ONE_IF, 0.5 / 3 + 0.3 / 3 + 0.2),
    # agent cc 0, loc 1, 0 functions vs 2, 4, 1: cc 1, loc 1 - 1/6, functions 1 - 1/1 = 0
    ("complexity", "x = 1\n", ONE_IF, 0.5 + 0.3 * 5 / 6),
    # agent cc 2, loc 4 vs reference cc 3, loc 6: cc 1 - 2/4.5, loc 1 - 4/9, functions 1
    ("complexity", ONE_IF, LOOP_IF, 0.8 * 5 / 9 + 0.2),
    # agent cc 3, loc 6, 3 functions vs 2, 4, 1: cc 0, loc 0, functions 1 - 2/1 = -1 -> -0.2, clamped
    ("complexity", THREE_DEFS, ONE_IF, 0.0),
    # empty reference: its cc and loc floor at 1, so cc 1 - min(1, 2/1.5) = 0 and loc 0; functions 1 - 1/1
    ("complexity", ONE_IF, "", 0.0),
]


@pytest.mark.parametrize(("method", "agent", "reference", "expected"), REFERENCE_FIGURES)
def test_reference_figures(method, agent, reference, expected):
    assert score(agent, reference, method) == pytest.approx(expected)


def test_ast_sequence_is_walk_order_of_type_names():
    import ast

    assert node_types(ast.parse("x = 1\n")) == ["Module", "Assign", "Name", "Constant", "Store"]


def test_token_sequence_is_every_token_type():
    assert token_types("x = 1  # c\n") == ["NAME", "OP", "NUMBER", "COMMENT", "NEWLINE", "ENDMARKER"]


def test_ratio_keeps_difflib_defaults():
    """Long sequences go through SequenceMatcher's autojunk heuristic, as the reference's call does."""
    import difflib

    agent = "x = 1\n" * 120  # well over 200 node types on each side
    reference = "x = 1\ny = [2]\n" * 60
    expected = difflib.SequenceMatcher(
        None, node_types(__import__("ast").parse(agent)), node_types(__import__("ast").parse(reference))
    ).ratio()
    assert score(agent, reference, "ast") == pytest.approx(expected)


@pytest.mark.parametrize(
    ("agent", "reference", "cc", "loc", "functions"),
    [(ONE_IF, LOOP_IF, 1 - 2 / 4.5, 1 - 4 / 9, 1.0), (THREE_DEFS, ONE_IF, 0.0, 0.0, -1.0)],
)
def test_complexity_parts(agent, reference, cc, loc, functions):
    a, r = measure(agent), measure(reference)
    assert headroom_score(a.complexity, r.complexity) == pytest.approx(cc)
    assert headroom_score(a.loc, r.loc) == pytest.approx(loc)
    assert function_score(a.functions, r.functions) == pytest.approx(functions)


@pytest.mark.parametrize(
    ("source", "complexity", "loc", "functions"),
    [
        ("", 0, 0, 0),
        ("x = 1\n", 0, 1, 0),
        (ONE_IF, 2, 4, 1),
        (LOOP_IF, 3, 6, 1),
        (THREE_DEFS, 3, 6, 3),
    ],
)
def test_radon_measures(source, complexity, loc, functions):
    measured = measure(source)
    assert (measured.complexity, measured.loc, measured.functions) == (complexity, loc, functions)


def test_complexity_details_name_each_part_and_the_clamp():
    details = complexity_similarity(THREE_DEFS, ONE_IF, filename="s.py").details
    assert "cc agent 3 vs reference 2" in details
    assert "functions agent 3 vs reference 1 (-1.000)" in details
    assert "clamped from -0.200" in details


@pytest.mark.parametrize("method", ["ast", "token", "ast_shape"])
@pytest.mark.parametrize(("source", "filename"), [(MEAN, "solution.py"), (STACK, "solution.py"), (SCRIPT, "")])
def test_identical_sources_score_one(method, source, filename):
    assert score(source, source, method, filename) == 1.0


def test_identical_non_python_sources_score_one():
    for method in METHODS:
        assert score(JS, JS, method, "add.js") == 1.0


@pytest.mark.parametrize("method", ["ast", "ast_shape"])
def test_renaming_keeps_structure(method):
    assert score(MEAN_RENAMED, MEAN, method) > 0.9


@pytest.mark.parametrize(
    ("agent", "reference", "method", "below"),
    [
        (MEAN, STACK, "ast_shape", 0.1),
        (MEAN, SCRIPT, "ast_shape", 0.05),
        (STACK, SCRIPT, "ast_shape", 0.15),
        ("x = 1\n", STACK, "ast_shape", 0.1),
        ("x = 1\n", STACK, "ast", 0.2),
    ],
)
def test_unrelated_sources_score_low(agent, reference, method, below):
    assert score(agent, reference, method) < below


def test_ast_shape_ignores_docstrings_and_comments():
    plain = "def f(a):\n    return a + 1\n"
    documented = 'def f(a):\n    """Add one."""\n    # the increment\n    return a + 1  # done\n'
    assert score(documented, plain, "ast_shape") == 1.0
    assert score(documented, plain, "ast") < 1.0  # the reference's ast counts the docstring's nodes


def test_ast_shape_reordering_stays_close():
    assert 0.9 <= score(MEAN_REORDERED, MEAN, "ast_shape") <= 0.99


def test_ast_shape_is_symmetric():
    assert score(MEAN, STACK, "ast_shape") == score(STACK, MEAN, "ast_shape")


def test_text_tokens_split_words_and_punctuation():
    assert text_tokens("return a+b; // x") == ["return", "a", "+", "b", ";", "/", "/", "x"]


@pytest.mark.parametrize("method", ["ast", "token", "complexity", "ast_shape"])
def test_non_python_file_compares_text_tokens(method):
    other = JS.replace("a + b", "b + a")
    report = similarity(other, JS, method, filename="add.js")
    assert 0.8 < report.score < 1.0
    assert "add.js is not a Python file" in report.details
    assert "compared text tokens instead" in report.details


@pytest.mark.parametrize("method", ["ast", "ast_shape"])
@pytest.mark.parametrize(
    ("agent", "reference", "side"),
    [
        ("def broken(:\n    pass\n", MEAN, "agent source does not parse as Python (line 1)"),
        (MEAN, "x = 1\ny = (\n", "reference source does not parse as Python (line 2)"),
    ],
)
def test_syntax_errors_fall_back_to_text(method, agent, reference, side):
    report = similarity(agent, reference, method, filename="solution.py")
    assert side in report.details
    assert "compared text tokens instead" in report.details


@pytest.mark.parametrize(
    ("agent", "reference", "side"),
    [
        ("def broken(:\n    pass\n", MEAN, "agent source does not parse"),
        (MEAN, "x = (\n", "reference source does not parse"),
        (MEAN, "a\0b = 1\n", "reference source does not parse"),
    ],
)
def test_complexity_scores_zero_on_syntax_errors(agent, reference, side):
    report = complexity_similarity(agent, reference, filename="solution.py")
    assert report.score == 0.0
    assert side in report.details


@pytest.mark.parametrize(
    ("agent", "reference", "note"),
    [
        ("s = '''open\n", "s = 1\n", "agent source does not tokenize as Python"),
        ("s = 1\n", "if a:\n        b\n    c\n", "reference source does not tokenize as Python"),
    ],
)
def test_token_falls_back_to_text_tokens(agent, reference, note):
    assert note in token_similarity(agent, reference, filename="solution.py").details


def test_ast_survives_deep_nesting():
    deep = "x = " + "1 + " * 900 + "1\n"
    assert ast_similarity(deep, deep, filename="deep.py").score == 1.0
    assert ast_shape_similarity(deep, deep, filename="deep.py").score == 1.0


def test_ast_falls_back_when_parser_gives_up():
    too_deep = "x = " + "1 + " * 5000 + "1\n"  # beyond what ast.parse accepts
    report = ast_similarity(too_deep, "x = 1\n", filename="deep.py")
    assert "agent source does not parse as Python" in report.details


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("ast", "ast: 53 agent vs 53 reference nodes; node-type sequence ratio 1.000"),
        ("token", "token: 71 agent vs 71 reference tokens; token-type sequence ratio 1.000"),
        ("complexity", "complexity: cc agent 4 vs reference 4"),
        ("ast_shape", "ast_shape: 17 agent vs 17 reference subtree shapes, 17 shared; Dice 1.000"),
    ],
)
def test_details_report_counts(method, expected):
    assert similarity(MEAN, MEAN, method).details.startswith(expected)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("agent", "reference"), [(MEAN, STACK), (MEAN_RENAMED, MEAN), ("", SCRIPT), (THREE_DEFS, "")])
def test_scores_stay_in_unit_interval(method, agent, reference):
    assert 0.0 <= score(agent, reference, method) <= 1.0
