"""Migrate task files: rewrite each, diff it, check the result loads, write it (unless checking).

In place by default; with an output directory every rewritten file (and the reference files it
needs) lands under it at the same path relative to the migrated files' common directory, and the
originals stay untouched. Files that need no change are not rewritten at all.
"""

from __future__ import annotations

import difflib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.errors import TaskConfigError
from coder_eval.loading.discovery import discover_task_files
from coder_eval.loading.loader import check_document
from coder_eval.loading.safe_read import read_input_text
from coder_eval.loading.yaml_source import parse_yaml_text
from coder_eval.migrate.roundtrip import load
from coder_eval.migrate.rules import Claims, NewFile, Rewrite, rewrite
from coder_eval.records.atomic import write_text_atomic


@dataclass
class FileMigration:
    """One task file: its text before and after, what changed, and whether the result loads."""

    source: Path
    target: Path
    before: str
    after: str
    rewrite: Rewrite = field(default_factory=Rewrite)
    problems: list[str] = field(default_factory=list)
    """Why the rewritten file still does not load (other mistakes, or a form migrate cannot fix)."""

    @property
    def changed(self) -> bool:
        return self.after != self.before or bool(self.rewrite.new_files)

    def diff(self) -> str:
        """A unified diff of the task file, then one line per new file."""
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=str(self.source),
            tofile=str(self.target),
        )
        text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
        for new in self.rewrite.new_files:
            text += f"+++ new file {self.target.parent / new.relative} ({len(new.content())} bytes)\n"
        return text


def _common_root(files: list[Path]) -> Path:
    return Path(os.path.commonpath([str(f.resolve().parent) for f in files]))


def _problems_after(text: str, target: Path) -> list[str]:
    """What is still wrong with the rewritten text as a task file (schema only: its paths may not exist yet)."""
    try:
        raw, lines = parse_yaml_text(text, target)
        check_document(raw, target, lines)
    except TaskConfigError as exc:
        return [p.render() for p in exc.problems]
    return []


def migrate_file(source: Path, target: Path, claims: Claims) -> FileMigration:
    """Rewrite one task file in memory (nothing is written here)."""
    before = read_input_text(source, source=source)
    document = load(before, str(source))
    done = rewrite(document.data, source.resolve().parent, claims)
    after = document.dump() if done.changes else before
    result = FileMigration(source, target, before, after, done)
    if result.changed:
        result.problems = _problems_after(after, target)
    return result


def plan_migration(paths: list[str], *, out_dir: Path | None = None, cwd: Path | None = None) -> list[FileMigration]:
    """Every task file under `paths`, rewritten in memory; targets are in place or under `out_dir`."""
    files = discover_task_files(paths, cwd=cwd)
    if not files:
        return []
    root = _common_root(files)
    claims = Claims()
    out: list[FileMigration] = []
    for source in files:
        target = source if out_dir is None else out_dir / source.resolve().relative_to(root)
        out.append(migrate_file(source, target, claims))
    return out


def write_migration(result: FileMigration) -> None:
    """Write the rewritten task file and the files it needs (the reference directory)."""
    for new in result.rewrite.new_files:
        _write_new(result.target.parent / new.relative, new)
    if result.after != result.before or result.target != result.source:
        write_text_atomic(result.target, result.after, redact=False)


def _write_new(path: Path, new: NewFile) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if new.copy_of is not None:
        shutil.copy2(new.copy_of, path)
    else:
        write_text_atomic(path, new.text or "", redact=False)
