"""Ignore rules shared by template copies and criterion globs."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def default_ignore_patterns() -> tuple[str, ...]:
    text = resources.files("coder_eval.resources").joinpath("default_ignore_patterns.txt").read_text()
    return tuple(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


@dataclass(frozen=True)
class IgnoreRules:
    """Defaults plus a task's overrides: a bare entry adds, `!entry` removes a default."""

    patterns: tuple[str, ...]

    @classmethod
    def with_overrides(cls, overrides: list[str] | None = None) -> IgnoreRules:
        patterns = list(default_ignore_patterns())
        for raw in overrides or []:
            entry = raw.strip()
            if entry.startswith("!"):
                name = entry[1:].strip()
                patterns = [p for p in patterns if p != name]
            elif entry not in patterns:
                patterns.append(entry)
        return cls(tuple(patterns))

    def matches(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, p) for p in self.patterns)

    def ignores(self, rel_parts: tuple[str, ...], opted_in: frozenset[str] = frozenset()) -> bool:
        """True when any segment is ignored and was not named literally by the caller."""
        return any(part not in opted_in and self.matches(part) for part in rel_parts)
