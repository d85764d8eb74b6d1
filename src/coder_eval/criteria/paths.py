"""Resolve a criterion's `path` inside the sandbox: literal first, then glob.

A literal path that exists is never a pattern. Otherwise the path is a glob over
the sandbox, with ignored directories filtered out unless the pattern names them
literally. A path that escapes the sandbox and exists is a task-configuration
error, never a score.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from coder_eval.common.ignore import IgnoreRules
from coder_eval.common.safe_open import PlantedLinkError
from coder_eval.errors import CheckerMisuseError

_GLOB_CHARS = frozenset("*?[")
_SHOWN_MATCHES = 10


@dataclass(frozen=True)
class Resolution:
    """What a path resolved to. `is_glob` tells whether pattern expansion was used."""

    pattern: str
    matches: tuple[Path, ...]
    is_glob: bool
    root: Path

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def describe(self) -> str:
        names = [self.rel(p) for p in self.matches[:_SHOWN_MATCHES]]
        extra = len(self.matches) - _SHOWN_MATCHES
        return ", ".join(names) + (f" (+{extra} more)" if extra > 0 else "")


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return True


def resolve_paths(root: Path, pattern: str, ignore: IgnoreRules) -> Resolution:
    """Files `pattern` names under `root` (sorted, directories skipped for globs)."""
    root = root.resolve()
    literal = Path(os.path.normpath(root / pattern))
    if literal.exists() or literal.is_symlink():
        if not _inside(literal, root) and (literal == root or literal.is_relative_to(root)):
            # the path is the sandbox's own; a symlink the agent planted takes it out
            raise PlantedLinkError(f"{pattern} is a symbolic link leading outside the workspace")
        if not _inside(literal, root):
            raise CheckerMisuseError(
                f"path {pattern!r} resolves outside the sandbox ({literal.resolve()}); "
                "criterion paths must be sandbox-relative"
            )
        return Resolution(pattern, (literal,), False, root)
    if not (_GLOB_CHARS & set(pattern)):
        return Resolution(pattern, (), False, root)
    if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        return Resolution(pattern, (), True, root)
    opted_in = frozenset(seg for seg in Path(pattern).parts if not (_GLOB_CHARS & set(seg)))
    found: list[Path] = []
    for match in root.glob(pattern):
        if not match.is_file():
            continue
        rel_parts = match.relative_to(root).parts
        if ignore.ignores(rel_parts, opted_in) or not _inside(match, root):
            continue
        found.append(match)
    return Resolution(pattern, tuple(sorted(found)), True, root)


def resolve_host_path(entry: str, *, root: Path, task_dir: Path | None, reference_dir: Path | None) -> Path:
    """A judge/schema file entry: `$TASK_DIR/...`, `$REFERENCE_DIR/...`, or sandbox-relative."""
    for token, base in (("$TASK_DIR", task_dir), ("$REFERENCE_DIR", reference_dir)):
        for form in (token + "/", "${" + token[1:] + "}/"):
            if entry.startswith(form):
                if base is None:
                    raise CheckerMisuseError(f"{entry!r} uses {token} but the task has no such directory")
                return Path(os.path.normpath(base / entry[len(form) :]))
    return Path(os.path.normpath(root / entry))
