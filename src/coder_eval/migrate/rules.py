"""The rewrites `coder-eval migrate` applies to one task document, in place.

- `reference: {file: x}` / `reference: {code: ...}` become `reference: {directory: d}` with the
  solution written into `d` next to the task (a new directory, or one that already holds exactly
  that file), and `reference_comparison` criteria gain the `reference_file` they now need;
- legacy criterion aliases (`command_not_executed`) become the type they mean, with the values
  the alias forces;
- stale top-level keys (`max_iterations`, `llm_reviewer`) are removed.

Unknown top-level keys are left alone and reported: they may be a typo only the author can fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from coder_eval.common.suggest import did_you_mean
from coder_eval.loading.compat import STALE_KEYS
from coder_eval.models.criteria import LEGACY_CRITERION_ALIASES
from coder_eval.models.task import TaskDefinition

DEFAULT_SOLUTION_NAME = "solution.py"
"""The file an inline `reference.code` is written to when no criterion names one (reference_comparison is Python)."""


@dataclass(frozen=True)
class NewFile:
    """A file the rewrite needs written, relative to the task file's directory."""

    relative: PurePosixPath
    text: str | None = None
    copy_of: Path | None = None
    """Copy this file (bytes as they are) instead of writing `text`."""

    def content(self) -> bytes:
        if self.copy_of is not None:
            return self.copy_of.read_bytes()
        return (self.text or "").encode("utf-8")


@dataclass
class Claims:
    """Reference directories chosen in this migration, so two tasks beside each other never share one."""

    taken: dict[Path, dict[str, bytes]] = field(default_factory=dict)

    def usable(self, directory: Path, name: str, content: bytes) -> bool:
        """A new directory, or one that holds (or will hold) exactly this file with this content."""
        claimed = self.taken.get(directory)
        if claimed is not None:
            return claimed == {name: content}
        if not directory.exists():
            return True
        if not directory.is_dir() or directory.is_symlink():
            return False
        entries = list(directory.iterdir())
        only = entries[0] if len(entries) == 1 else None
        return only is not None and only.name == name and only.is_file() and only.read_bytes() == content

    def claim(self, directory: Path, name: str, content: bytes) -> None:
        self.taken[directory] = {name: content}


@dataclass
class Rewrite:
    """What the rules did to one document: the changes, files to write and what is left for a person."""

    changes: list[str] = field(default_factory=list)
    new_files: list[NewFile] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def rewrite(doc: Any, task_dir: Path, claims: Claims) -> Rewrite:
    """Apply every rule to `doc` (a round-trip mapping), changing it in place."""
    out = Rewrite()
    if not isinstance(doc, dict):
        out.left.append("the document is not a mapping; nothing to migrate")
        return out
    _stale_keys(doc, out)
    _aliases(doc, out)
    _reference(doc, task_dir, claims, out)
    known = TaskDefinition.model_fields
    for key in doc:
        if str(key) not in known:
            hint = did_you_mean(str(key), list(known))
            kept = f"unknown top-level key {key!r} kept (it loads with a warning)"
            out.left.append(f"{kept}; {hint}" if hint else kept)
    return out


def _stale_keys(doc: Any, out: Rewrite) -> None:
    for key, replacement in STALE_KEYS.items():
        if key in doc:
            del doc[key]
            out.changes.append(f"removed {key} (no longer used: {replacement})")


def _set_after(item: Any, anchor: str, key: str, value: Any) -> None:
    """Set `item[key]`, inserting a new key right after `anchor` to keep the author's order."""
    if key in item:
        item[key] = value
        return
    keys = list(item)
    position = keys.index(anchor) + 1 if anchor in keys else len(keys)
    if hasattr(item, "insert"):
        item.insert(position, key, value)
    else:
        item[key] = value


def _criteria(doc: Any) -> list[tuple[int, Any]]:
    """(index, mapping) of every criterion written as a mapping."""
    criteria = doc.get("success_criteria")
    items = criteria if isinstance(criteria, list) else []
    return [(i, c) for i, c in enumerate(items) if isinstance(c, dict)]


def _aliases(doc: Any, out: Rewrite) -> None:
    for i, item in _criteria(doc):
        kind = item.get("type")
        if not isinstance(kind, str) or kind not in LEGACY_CRITERION_ALIASES:
            continue
        target, forced = LEGACY_CRITERION_ALIASES[kind]
        item["type"] = target
        anchor = "type"
        for key, value in forced.items():
            _set_after(item, anchor, key, value)
            anchor = key
        fixed = ", ".join(f"{k}: {v}" for k, v in forced.items())
        out.changes.append(f"success_criteria[{i}]: {kind} -> {target} with {fixed}")


def _solution_name(doc: Any) -> str:
    """The file name an inline reference gets: what a reference_comparison criterion compares against."""
    for _, item in _criteria(doc):
        if item.get("type") != "reference_comparison":
            continue
        if isinstance(item.get("reference_file"), str):
            return PurePosixPath(item["reference_file"]).name
        agent_file = item.get("agent_file")
        if isinstance(agent_file, str) and not set("*?[") & set(agent_file):
            return PurePosixPath(agent_file).name
    return DEFAULT_SOLUTION_NAME


def _directory_for(doc: Any, task_dir: Path, claims: Claims, name: str, content: bytes) -> str:
    task_id = str(doc.get("task_id") or "task")
    candidates = ["reference", f"reference-{task_id}", *(f"reference-{task_id}-{n}" for n in range(2, 100))]
    for candidate in candidates:
        if claims.usable(task_dir / candidate, name, content):
            claims.claim(task_dir / candidate, name, content)
            return candidate
    raise ValueError(f"no free directory name for the reference of {task_id!r} next to {task_dir}")


def _reference(doc: Any, task_dir: Path, claims: Claims, out: Rewrite) -> None:
    ref = doc.get("reference")
    if not isinstance(ref, dict) or not ({"file", "code"} & set(ref)):
        return
    if "file" in ref:
        raw = str(ref["file"])
        source = task_dir / raw
        if source.is_dir():
            _replace_reference(ref, raw)
            out.changes.append(f"reference.file {raw!r} names a directory: now reference.directory")
            return
        if not source.is_file():
            out.left.append(f"reference.file {raw!r} does not exist next to the task; move the solution by hand")
            return
        name = source.name
        new = NewFile(PurePosixPath(name), copy_of=source)
        what = f"copied {raw}"
    else:
        name = _solution_name(doc)
        new = NewFile(PurePosixPath(name), text=str(ref["code"]))
        what = "wrote the inline code"
    directory = _directory_for(doc, task_dir, claims, name, new.content())
    out.new_files.append(NewFile(PurePosixPath(directory) / name, new.text, new.copy_of))
    _replace_reference(ref, directory)
    out.changes.append(f"reference: {what} to {directory}/{name}; reference.directory is {directory!r}")
    for i, item in _criteria(doc):
        if item.get("type") == "reference_comparison" and "reference_file" not in item:
            _set_after(item, "agent_file", "reference_file", name)
            out.changes.append(f"success_criteria[{i}]: reference_file {name!r} added (it is now required)")


def _replace_reference(ref: Any, directory: str) -> None:
    for old in ("file", "code"):
        if old in ref:
            del ref[old]
    ref["directory"] = directory
