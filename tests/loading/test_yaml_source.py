"""The YAML reader: one parse gives the data and the line map; the shape checks count exactly."""

from __future__ import annotations

import pytest
import yaml

from coder_eval.errors import TaskConfigError
from coder_eval.loading.yaml_source import MAX_ALIAS_EXPANSION, parse_yaml_text


def test_merge_keys_are_merged_in_the_data_but_indexed_as_written() -> None:
    text = "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n"
    data, lines = parse_yaml_text(text, "t.yaml")
    assert data == yaml.safe_load(text) == {"base": {"x": 1, "y": 2}, "d": {"x": 1, "y": 3}}
    assert lines[("d", "y")] == 4
    assert lines[("d", "<<")] == 3  # the line map describes the text, not the merged mapping


def test_data_equals_a_plain_safe_load_except_timestamps() -> None:
    text = "a: [1, 2.5, true, null, 'q']\nwhen: 2024-01-15\nnested: {k: [{m: n}]}\n"
    data, lines = parse_yaml_text(text, "t.yaml")
    assert data == {"a": [1, 2.5, True, None, "q"], "when": "2024-01-15", "nested": {"k": [{"m": "n"}]}}
    assert lines[("nested", "k", 0, "m")] == 3


def test_empty_document_has_no_data_and_no_lines() -> None:
    assert parse_yaml_text("# only a comment\n", "t.yaml") == (None, {})


def _expansion(list_aliases: int, scalar_aliases: int) -> str:
    """A document whose aliases add exactly 100 nodes per list alias and 1 per scalar alias."""
    items = ", ".join(["1"] * 99)
    return (
        f"l: &l [{items}]\n"
        f"s: &s word\n"
        f"many: [{', '.join(['*l'] * list_aliases)}]\n"
        f"words: [{', '.join(['*s'] * scalar_aliases)}]\n"
    )


def test_alias_expansion_limit_counts_every_node_an_alias_adds() -> None:
    """Lists and scalars reached through an alias both count, each alias once per use."""
    parse_yaml_text(_expansion(999, 100), "t.yaml")  # exactly the allowance: accepted
    with pytest.raises(TaskConfigError, match="aliases expand the document"):
        parse_yaml_text(_expansion(999, 101), "t.yaml")
    assert MAX_ALIAS_EXPANSION == 999 * 100 + 100


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\nb: {c: 1, c: 2}\n", "key 'c' appears twice (lines 2 and 2)"),
        ("- {k: 1}\n- k: 2\n  k: 3\n", "key 'k' appears twice (lines 2 and 3)"),
        ("x: &a [1, *a]\n", "aliased inside itself"),
        ("x: " + "[" * 101 + "]" * 101 + "\n", "nested more than 100 levels"),
    ],
)
def test_shape_and_duplicate_problems_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(TaskConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_yaml_text(text, "t.yaml")


def test_a_document_at_the_nesting_limit_loads() -> None:
    data, _ = parse_yaml_text("x: " + "[" * 99 + "]" * 99 + "\n", "t.yaml")
    depth, node = 0, data["x"]
    while node:
        node, depth = node[0], depth + 1
    assert depth == 98  # 99 lists: the innermost is empty
