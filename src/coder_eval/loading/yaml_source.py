"""Read a YAML document and remember the line of every mapping key and list item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from coder_eval.errors import TaskConfigError

try:
    _Loader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - libyaml is missing on some platforms
    _Loader = yaml.SafeLoader

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


def parse_yaml_text(text: str, source: Path | str) -> tuple[Any, LineMap]:
    """Parse YAML text; a syntax error becomes a TaskConfigError naming the line."""
    try:
        node = yaml.compose(text, Loader=_Loader)
        data = yaml.load(text, Loader=_Loader) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise TaskConfigError.single(source, f"not valid YAML ({problem})", where, "fix the YAML syntax") from None
    lines: LineMap = {}
    if node is not None:
        _index_lines(node, (), lines)
    return data, lines


def read_yaml(path: Path) -> tuple[Any, LineMap]:
    """Read and parse a YAML file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TaskConfigError.single(path, "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskConfigError.single(path, f"cannot read file ({exc.__class__.__name__}: {exc})") from None
    return parse_yaml_text(text, path)
