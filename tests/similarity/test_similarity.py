"""Similarity methods: ast (subtree-shape Dice), token (sequence ratio), complexity (radon counts)."""

from __future__ import annotations

import ast

import pytest

from coder_eval.similarity import complexity as complexity_module
from coder_eval.similarity import similarity
from coder_eval.similarity.ast_similarity import ast_similarity
from coder_eval.similarity.complexity import complexity_similarity, count_ratio, measure
from coder_eval.similarity.token_similarity import python_tokens, text_tokens, token_similarity

METHODS = ("ast", "token", "complexity")

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
ONE_IF = "def sign(x):\n    if x < 0:\n        return -1\n    return 1\n"


def score(agent: str, reference: str, method: str, filename: str = "solution.py") -> float:
    return similarity(agent, reference, method, filename=filename).score  # type: ignore[arg-type]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    ("source", "filename"),
    [
        (MEAN, "solution.py"),
        (STACK, "solution.py"),
        (SCRIPT, ""),
        ("", "solution.py"),
        (JS, "add.js"),
        ("x = a + b\ny = c + d - e * f\n", "ops.py"),  # operator nodes are shared objects in CPython
    ],
)
def test_identical_sources_score_one(method, source, filename):
    assert score(source, source, method, filename) == 1.0


@pytest.mark.parametrize(
    ("method", "low", "high"),
    [
        ("ast", 1.0, 1.0),  # names, literals, docstrings and comments are not structure
        ("token", 0.5, 0.85),  # every renamed identifier is a mismatched token
        ("complexity", 1.0, 1.0),
    ],
)
def test_renamed_variables(method, low, high):
    assert low <= score(MEAN_RENAMED, MEAN, method) <= high


@pytest.mark.parametrize(
    ("method", "low", "high"),
    [
        ("ast", 0.9, 0.99),  # only the module's own shape changes
        ("token", 0.3, 0.7),  # an in-order match can keep only one of the two functions aligned
        ("complexity", 1.0, 1.0),
    ],
)
def test_reordered_functions(method, low, high):
    assert low <= score(MEAN_REORDERED, MEAN, method) <= high


@pytest.mark.parametrize(
    ("agent", "reference", "method", "below"),
    [
        (MEAN, STACK, "ast", 0.1),
        (MEAN, SCRIPT, "ast", 0.05),
        (STACK, SCRIPT, "ast", 0.15),
        (MEAN, STACK, "token", 0.3),
        (STACK, SCRIPT, "token", 0.2),
        ("x = 1\n", STACK, "ast", 0.1),
    ],
)
def test_unrelated_sources_score_low(agent, reference, method, below):
    assert score(agent, reference, method) < below


@pytest.mark.parametrize(
    ("agent", "reference", "method", "expected"),
    [
        ("", "", "ast", 1.0),
        ("", "", "token", 1.0),
        ("", "", "complexity", 1.0),
        ('"""Only a docstring."""\n', "", "ast", 1.0),  # docstrings are dropped
        ("# only a comment\n\n", "", "token", 1.0),  # comments and blank lines are not tokens
        ("", MEAN, "ast", 0.0),
        (MEAN, "", "ast", 0.0),
        ("", MEAN, "token", 0.0),
        ("", ONE_IF, "complexity", 0.375),  # 0.75 * (1/2) + 0.25 * (0/1)
    ],
)
def test_empty_sources(agent, reference, method, expected):
    assert score(agent, reference, method) == pytest.approx(expected)


def test_ast_ignores_docstrings_and_comments():
    plain = "def f(a):\n    return a + 1\n"
    documented = 'def f(a):\n    """Add one."""\n    # the increment\n    return a + 1  # done\n'
    assert score(documented, plain, "ast") == 1.0


def test_ast_keeps_operators_and_shape():
    assert score("def f(a):\n    return a + 1\n", "def f(a):\n    return a * 1\n", "ast") < 1.0
    assert score("x = f(a)\n", "x = f(a, b)\n", "ast") < 1.0


def test_ast_is_symmetric():
    assert score(MEAN, STACK, "ast") == score(STACK, MEAN, "ast")


def test_token_ignores_comments_and_layout():
    compact = "def f(a): return a+1\n"
    spread = "def f(a):\n    # comment\n\n    return a + 1  # trailing\n"
    assert score(compact, spread, "token") == 1.0


@pytest.mark.parametrize(
    ("source", "tokens"),
    [
        ("x = f(a, 1)  # note\n", ["x", "=", "f", "(", "a", ",", "1", ")"]),
        ("if a:\n    b\n", ["if", "a", ":", "b"]),
        ("s = 'a b'\n", ["s", "=", "'a b'"]),  # a string literal is one token
    ],
)
def test_python_tokens(source, tokens):
    assert python_tokens(source) == tokens


def test_text_tokens_split_words_and_punctuation():
    assert text_tokens("return a+b; // x") == ["return", "a", "+", "b", ";", "/", "/", "x"]


@pytest.mark.parametrize("method", ["ast", "complexity"])
def test_non_python_file_falls_back_to_tokens(method):
    other = JS.replace("a + b", "b + a")
    report = similarity(other, JS, method, filename="add.js")
    assert report.score == token_similarity(other, JS, filename="add.js").score
    assert 0.8 < report.score < 1.0
    assert "add.js is not a Python file" in report.details
    assert "fell back to the token method" in report.details
    assert "text tokenizer" in report.details


@pytest.mark.parametrize(
    ("agent", "reference", "side"),
    [
        ("def broken(:\n    pass\n", MEAN, "agent source does not parse as Python (line 1)"),
        (MEAN, "x = 1\ny = (\n", "reference source does not parse as Python (line 2)"),
    ],
)
def test_ast_falls_back_on_syntax_errors(agent, reference, side):
    report = ast_similarity(agent, reference, filename="solution.py")
    assert side in report.details
    assert "fell back to the token method" in report.details
    assert report.score == token_similarity(agent, reference, filename="solution.py").score


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
def test_token_falls_back_to_text_tokenizer(agent, reference, note):
    assert note in token_similarity(agent, reference, filename="solution.py").details


def test_ast_walk_survives_deep_nesting():
    deep = "x = " + "1 + " * 900 + "1\n"  # deeper than a recursive visitor could go
    report = ast_similarity(deep, deep, filename="deep.py")
    assert report.score == 1.0
    assert "Dice" in report.details


def test_ast_falls_back_when_parser_gives_up():
    too_deep = "x = " + "1 + " * 5000 + "1\n"  # beyond what ast.parse accepts
    report = ast_similarity(too_deep, "x = 1\n", filename="deep.py")
    assert "agent source does not parse as Python" in report.details
    assert "fell back to the token method" in report.details


def test_complexity_reports_visitor_recursion(monkeypatch):
    def overflow(tree):
        raise RecursionError

    monkeypatch.setattr(complexity_module, "measure", overflow)
    report = complexity_similarity(MEAN, MEAN, filename="solution.py")
    assert report.score == 0.0
    assert "agent source is nested too deeply to measure" in report.details


@pytest.mark.parametrize(
    ("source", "complexity", "functions"),
    [
        ("", 1, 0),
        ("x = 1\n", 1, 0),
        ("if x:\n    y = 1\n", 2, 0),
        (ONE_IF, 2, 1),
        ("def f(a, b, c):\n    return a and b or c\n", 3, 1),  # each extra boolean operand is a branch
        ("for i in x:\n    pass\nelse:\n    pass\n", 3, 0),  # loop plus its else
        ("try:\n    pass\nexcept A:\n    pass\nexcept B:\n    pass\n", 3, 0),  # one per handler
        ("y = [i for i in x if i]\n", 3, 0),  # comprehension plus its filter
        (MEAN, 3, 2),  # for + conditional expression
        (STACK, 2, 3),  # one if across three methods
        ("def f():\n    def g():\n        if x:\n            pass\n    return g\n", 2, 2),  # closures count
        ("class A:\n    if X:\n        y = 1\n    def m(self):\n        pass\n", 2, 1),  # class body
    ],
)
def test_complexity_measure(source, complexity, functions):
    measured = measure(ast.parse(source))
    assert (measured.complexity, measured.functions) == (complexity, functions)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [(0, 0, 1.0), (3, 3, 1.0), (1, 2, 0.5), (2, 1, 0.5), (0, 4, 0.0), (3, 4, 0.75)],
)
def test_count_ratio(a, b, expected):
    assert count_ratio(a, b) == expected


def test_complexity_combines_both_ratios():
    report = complexity_similarity(MEAN, ONE_IF, filename="solution.py")
    # complexity 3 vs 2 -> 2/3; functions 2 vs 1 -> 1/2
    assert report.score == pytest.approx(0.75 * 2 / 3 + 0.25 * 0.5)
    assert "agent 3 vs reference 2" in report.details
    assert "functions: agent 2 vs reference 1" in report.details


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("ast", "ast: 17 agent vs 17 reference subtree shapes, 17 shared; Dice 1.000"),
        ("token", "token: 52 agent vs 52 reference tokens (python tokenizer); sequence match ratio 1.000"),
        ("complexity", "complexity: agent 3 vs reference 3"),
    ],
)
def test_details_report_counts(method, expected):
    assert similarity(MEAN, MEAN, method).details.startswith(expected)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("agent", "reference"), [(MEAN, STACK), (MEAN_RENAMED, MEAN), ("", SCRIPT)])
def test_scores_stay_in_unit_interval(method, agent, reference):
    assert 0.0 <= score(agent, reference, method) <= 1.0
