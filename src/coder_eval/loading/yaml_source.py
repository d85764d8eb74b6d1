"""Read a YAML document and remember the line of every mapping key and list item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from coder_eval.errors import TaskConfigError
from coder_eval.loading.safe_read import read_input_text

try:
    _SafeLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - libyaml is missing on some platforms
    _SafeLoader = yaml.SafeLoader


class _Loader(_SafeLoader):  # type: ignore[valid-type,misc]
    """Safe loading limited to JSON-like values, the data model of a task file.

    A timestamp stays the text it was written as (as in YAML 1.2 and JSON), so
    `expected: 2024-01-15` compares with the string a program prints and a
    malformed date such as 2024-13-45 is not an error; binary and set values,
    which JSON cannot hold, are rejected with their line.
    """


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


def _not_json_like(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    raise yaml.constructor.ConstructorError(
        None, None, f"{node.tag.rsplit(':', 1)[-1]} values are not supported in a task file", node.start_mark
    )


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)
_Loader.add_constructor("tag:yaml.org,2002:binary", _not_json_like)
_Loader.add_constructor("tag:yaml.org,2002:set", _not_json_like)

LineMap = dict[tuple[str | int, ...], int]


def _index_lines(node: yaml.Node, path: tuple[str | int, ...], lines: LineMap) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.start_mark)
            lines[(*path, key)] = key_node.start_mark.line + 1
            _index_lines(value_node, (*path, key), lines)
            lines[(*path, key)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index_lines(item, (*path, i), lines)


MAX_NESTING = 100
"""Deepest mapping/list nesting a task file may use; far beyond any real task."""
MAX_ALIAS_EXPANSION = 100_000
"""How many nodes `*alias` references may add in total (stops "billion laughs" documents)."""


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def shape_problem(root: yaml.Node) -> str | None:
    """Why a composed document is unsafe to load: a recursive alias, deep nesting, an alias bomb.

    Iterative, so neither a deep nor a self-referencing document can exhaust the stack;
    shared (aliased) nodes are measured once, so an alias bomb is measured in linear time.
    Scalars, most of a document, are measured where they are met instead of through the stack.
    """
    measured: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded node count, nesting height)
    scalars: set[int] = set()  # distinct scalar nodes (each counts 1 node, height 1)
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, list[yaml.Node] | None]] = [(root, None)]
    while stack:
        node, kids = stack.pop()
        key = id(node)
        if kids is not None:  # every child is measured: measure the node
            size, height = 1, 0
            for kid in kids:
                if isinstance(kid, yaml.ScalarNode):
                    size += 1
                    height = height or 1
                else:
                    kid_size, kid_height = measured[id(kid)]
                    size += kid_size
                    height = max(height, kid_height)
            measured[key] = (size, height + 1)
            open_nodes.discard(key)
            if height + 1 > MAX_NESTING:
                return f"nested more than {MAX_NESTING} levels deep"
            continue
        if isinstance(node, yaml.ScalarNode):
            scalars.add(key)
            measured.setdefault(key, (1, 1))
            continue
        if key in measured:
            continue
        if key in open_nodes:
            line = node.start_mark.line + 1
            return f"the anchor at line {line} is aliased inside itself (a recursive alias)"
        open_nodes.add(key)
        children = _children(node)
        stack.append((node, children))
        for kid in reversed(children):
            if isinstance(kid, yaml.ScalarNode):
                scalars.add(id(kid))
            else:
                stack.append((kid, None))
    expanded = measured[id(root)][0]
    distinct = len(measured) + len(scalars - measured.keys())
    if expanded - distinct > MAX_ALIAS_EXPANSION:
        return f"aliases expand the document to {expanded} nodes (at most {MAX_ALIAS_EXPANSION} more allowed)"
    return None


def duplicate_key(root: yaml.Node) -> str | None:
    """The first mapping key written twice (YAML would silently keep the last), as a message."""
    stack = [root]
    seen_nodes: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: dict[str, int] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    stack.append(key_node)
                if not isinstance(value_node, yaml.ScalarNode):
                    stack.append(value_node)
                if not isinstance(key_node, yaml.ScalarNode):
                    continue
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                line = key_node.start_mark.line + 1
                if key_node.value in keys:
                    return f"key {key_node.value!r} appears twice (lines {keys[key_node.value]} and {line})"
                keys[key_node.value] = line
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(item for item in node.value if not isinstance(item, yaml.ScalarNode))
    return None


def parse_yaml_text(text: str, source: Path | str) -> tuple[Any, LineMap]:
    """Parse YAML text; a syntax error becomes a TaskConfigError naming the line."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        shape = shape_problem(node) if node is not None else None
        duplicate = duplicate_key(node) if node is not None and shape is None else None
        if duplicate is not None:
            raise TaskConfigError.single(
                source, f"duplicate key: {duplicate}", "", "keep one of them; YAML would silently use the last"
            )
        if shape is not None:
            raise TaskConfigError.single(
                source,
                f"not a usable YAML document ({shape})",
                "",
                "write the values out instead of nesting or aliasing them",
            )
        lines: LineMap = {}
        if node is None:
            return None, lines
        _index_lines(node, (), lines)  # before constructing: merge keys (<<) are flattened in place
        data = loader.construct_document(node)  # the node composed above: the text is parsed once
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise TaskConfigError.single(source, f"not valid YAML ({problem})", where, "fix the YAML syntax") from None
    except (ValueError, OverflowError) as exc:  # a scalar PyYAML cannot build: !!int x, a 5000-digit int
        raise TaskConfigError.single(
            source, f"not valid YAML (a value cannot be read: {exc})", "", "quote the value to keep it a string"
        ) from None
    finally:
        loader.dispose()
    return data, lines


def read_yaml(path: Path) -> tuple[Any, LineMap]:
    """Read and parse a YAML file."""
    return parse_yaml_text(read_input_text(path, source=path), path)
