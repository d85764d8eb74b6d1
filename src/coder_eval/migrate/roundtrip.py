"""YAML that survives a rewrite: comments, key order, quotes and the file's own indentation.

PyYAML (used to load tasks) forgets comments and layout, so the migrate command reads and writes
with ruamel.yaml's round-trip mode instead. Its output indentation is a setting, not something it
copies from the input, so `load` tries the layouts task files use and keeps the one that
reproduces the unchanged file most closely: a file then only changes where a rule changed it.
"""

from __future__ import annotations

import difflib
import io
import re
from dataclasses import dataclass
from functools import partial
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.representer import RoundTripRepresenter

from coder_eval.errors import TaskConfigError

_LAYOUTS = ((2, 2), (2, 0), (4, 2), (4, 0), (4, 4))
"""(mapping indent, dash offset of a list inside a mapping) pairs to try, most common first."""

_NULL_WORD = re.compile(r":[ \t]+(null|Null|NULL|~)[ \t]*(#.*)?$", re.MULTILINE)


def null_spelling(text: str) -> str:
    """How the file writes an explicit null (`null`, `~`, ...); a file that writes none leaves the value empty."""
    found = [m.group(1) for m in _NULL_WORD.finditer(text)]
    return max(set(found), key=found.count) if found else ""


def _null(spelling: str, representer: RoundTripRepresenter, _value: None) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:null", spelling)


def _yaml(mapping: int, offset: int, null: str = "null") -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a long line the author wrote on one
    yaml.indent(mapping=mapping, sequence=offset + 2, offset=offset)  # "- " takes two columns
    yaml.representer.add_representer(type(None), partial(_null, null))
    return yaml


def _changed_lines(before: str, after: str) -> int:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))


@dataclass
class Document:
    """A parsed YAML document and the layout to write it back in."""

    data: Any
    mapping: int = 2
    offset: int = 2
    null: str = "null"

    def dump(self) -> str:
        out = io.StringIO()
        _yaml(self.mapping, self.offset, self.null).dump(self.data, out)
        return out.getvalue()


def load(text: str, source: str) -> Document:
    """Parse `text` for rewriting; a syntax error is a TaskConfigError naming `source`."""
    try:
        data = _yaml(2, 2).load(text)
    except YAMLError as exc:
        raise TaskConfigError.single(source, f"not valid YAML ({exc})", "", "fix the YAML syntax") from None
    null = null_spelling(text)
    best = Document(data, null=null)
    best_changes: int | None = None
    for mapping, offset in _LAYOUTS:
        candidate = Document(data, mapping, offset, null)
        changes = _changed_lines(text, candidate.dump())
        if best_changes is None or changes < best_changes:
            best, best_changes = candidate, changes
        if changes == 0:
            break
    return best
