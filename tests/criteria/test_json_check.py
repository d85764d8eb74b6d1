"""json_check: parse, JSON Schema, and every JMESPath operator."""

from __future__ import annotations

import json

import pytest
from helpers import check

DOC = {
    "status": "success",
    "count": 3,
    "ratio": 0.5,
    "ok": True,
    "nothing": None,
    "tags": ["a", "b"],
    "metadata": {"version": "1.2.3"},
    "items": [{"name": "x", "active": True}, {"name": "y", "active": False}],
}


@pytest.mark.parametrize(
    ("assertion", "holds"),
    [
        ({"expression": "status", "expected": "success"}, True),
        ({"expression": "status", "expected": "fail"}, False),
        ({"expression": "count", "expected": 3.0}, True),
        ({"expression": "ok", "expected": 1}, False),  # true is not 1
        ({"expression": "ok", "expected": True}, True),
        ({"expression": "tags", "expected": ["a", "b"]}, True),
        ({"expression": "status", "operator": "not_equals", "expected": "fail"}, True),
        ({"expression": "status", "operator": "not_equals", "expected": "success"}, False),
        ({"expression": "tags", "operator": "contains", "expected": "a"}, True),
        ({"expression": "status", "operator": "contains", "expected": "succ"}, True),
        ({"expression": "metadata", "operator": "contains", "expected": "version"}, True),
        ({"expression": "count", "operator": "contains", "expected": 3}, False),
        ({"expression": "count", "operator": "gt", "expected": 2}, True),
        ({"expression": "count", "operator": "gt", "expected": 3}, False),
        ({"expression": "count", "operator": "gte", "expected": 3}, True),
        ({"expression": "ratio", "operator": "lt", "expected": 1}, True),
        ({"expression": "ratio", "operator": "lte", "expected": 0.5}, True),
        ({"expression": "status", "operator": "gt", "expected": 1}, False),  # mismatched kinds never order
        ({"expression": "length(items)", "operator": "gte", "expected": 1}, True),
        ({"expression": "status", "operator": "type", "expected": "string"}, True),
        ({"expression": "count", "operator": "type", "expected": "integer"}, True),
        ({"expression": "ok", "operator": "type", "expected": "integer"}, False),
        ({"expression": "nothing", "operator": "type", "expected": "null"}, True),
        ({"expression": "items", "operator": "type", "expected": "array"}, True),
        ({"expression": "metadata.version", "operator": "regex", "expected": r"^\d+\.\d+\.\d+$"}, True),
        ({"expression": "count", "operator": "regex", "expected": "3"}, False),  # regex needs a string
        ({"expression": "items[?active].name", "operator": "exists"}, True),
        ({"expression": "items[?name=='z'].name", "operator": "exists"}, False),
        ({"expression": "missing.key", "operator": "exists"}, False),
        ({"expression": "@", "expected": DOC}, True),
    ],
)
def test_each_operator(sandbox, assertion, holds):
    root = sandbox({"r.json": json.dumps(DOC)})
    result = check(root, type="json_check", path="r.json", assertions=[assertion])
    assert result.score == (1.0 if holds else 0.0), result.details


def test_assertion_score_is_share_passed(sandbox):
    root = sandbox({"r.json": json.dumps(DOC)})
    result = check(
        root,
        type="json_check",
        path="r.json",
        assertions=[
            {"expression": "status", "expected": "success"},
            {"expression": "count", "expected": 4},
            {"expression": "ok", "expected": True},
            {"expression": "ratio", "expected": 2},
        ],
    )
    assert result.score == 0.5
    assert "count equals 4 failed (got 3)" in result.details


SCHEMA = {"type": "object", "required": ["status", "count"], "properties": {"count": {"type": "integer"}}}


@pytest.mark.parametrize(
    ("doc", "assertions", "score"),
    [
        (DOC, [], 1.0),
        ({"status": "x"}, [], 0.0),
        ({"status": "x", "count": 1}, [{"expression": "status", "expected": "y"}], 0.5),
        ({"status": "x", "count": "1"}, [{"expression": "status", "expected": "x"}], 0.5),
    ],
)
def test_schema_and_assertions_average(sandbox, doc, assertions, score):
    root = sandbox({"r.json": json.dumps(doc), "schemas/s.json": json.dumps(SCHEMA)})
    result = check(root, type="json_check", path="r.json", json_schema="schemas/s.json", assertions=assertions)
    assert result.score == score


@pytest.mark.parametrize(("content", "score"), [("{}", 1.0), ("[1, 2]", 1.0), ("{bad", 0.0), ("", 0.0)])
def test_bare_check_is_validity(sandbox, content, score):
    assert check(sandbox({"d.json": content}), type="json_check", path="d.json").score == score


def test_missing_file_is_zero(sandbox):
    assert check(sandbox({}), type="json_check", path="d.json").score == 0.0


def test_schema_path_may_be_a_glob(sandbox):
    root = sandbox({"r.json": json.dumps(DOC), "s/schema.json": json.dumps(SCHEMA)})
    assert check(root, type="json_check", path="r.json", json_schema="s/*.json").score == 1.0
