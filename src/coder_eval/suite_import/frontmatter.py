"""Markdown files with a YAML frontmatter block (`---` lines around it), as prompt.md and graders/*.md are."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from coder_eval.errors import TaskConfigError
from coder_eval.loading.safe_read import read_input_text

_BLOCK = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_OPENING = re.compile(r"\A---[ \t]*\r?\n")


def read_markdown(path: Path) -> tuple[dict[str, Any] | None, str]:
    """(frontmatter or None when the file has none, body). A byte-order mark is dropped."""
    text = read_input_text(path, source=path, field="", what=path.name).lstrip("\ufeff")
    match = _BLOCK.match(text)
    if match is None:
        if _OPENING.match(text):
            raise TaskConfigError.single(
                path, "its frontmatter opens with `---` and never closes", "frontmatter", "add the closing `---` line"
            )
        return None, text
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        raise TaskConfigError.single(
            path, f"the frontmatter is not valid YAML: {' '.join(str(exc).split())}", "frontmatter", "fix its syntax"
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise TaskConfigError.single(
            path, "the frontmatter is not a mapping", "frontmatter", "write `key: value` lines"
        )
    return data, text[match.end() :]
