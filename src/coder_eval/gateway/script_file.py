"""Find, read and validate a task's script, or derive the oracle script from its reference directory.

Where a script lives (first match wins):

1. for a dataset row, ``scripts/<task_id>/<row_id>.yaml`` in the task's directory;
2. ``<task file stem>.script.yaml`` beside the task file;
3. ``scripts/<task_id>.yaml`` in the task's directory.

For a dataset row every string in the script gets ``${row.x}`` substituted first.

Besides the agent's `steps`, a script may answer the task's judges (`judges:`, one entry per
judge criterion, by index or description) and play the simulated user of a dialog
(`simulator:`, one line per simulator call), so every model in the loop is scripted.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from coder_eval.common.suggest import did_you_mean
from coder_eval.errors import Problem, TaskConfigError
from coder_eval.gateway.script_model import (
    ACTION_MODELS,
    STEP_KINDS,
    TOOL_STEP_KINDS,
    Script,
    StepModel,
    WriteFile,
    WriteFileStep,
)
from coder_eval.loading.dataset import substitute_leaves
from coder_eval.loading.loader import LoadedTask
from coder_eval.loading.problems import format_loc
from coder_eval.loading.yaml_source import LineMap, read_yaml

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__"})
"""Directories under a reference directory the oracle never writes."""


def script_candidates(task: LoadedTask) -> list[Path]:
    """Where the task's script may live, most specific first."""
    base = task.task_dir
    task_id = task.definition.task_id
    found: list[Path] = []
    if task.row_id is not None:
        found.append(base / "scripts" / task_id / f"{task.row_id}.yaml")
    found.append(base / f"{task.source_file.stem}.script.yaml")
    found.append(base / "scripts" / f"{task_id}.yaml")
    return found


def find_script(task: LoadedTask) -> Path | None:
    """The first existing script file for the task, or None."""
    return next((p for p in script_candidates(task) if p.is_file()), None)


def script_for(task: LoadedTask, *, oracle: bool) -> Script:
    """The script to play for a task: the oracle, or the task's script file (TaskConfigError if none)."""
    if oracle:
        return oracle_script(task)
    path = find_script(task)
    if path is None:
        candidates = script_candidates(task)
        others = ", ".join(str(p) for p in candidates[1:])
        raise TaskConfigError.single(
            task.source_file,
            f"no script for task {task.task_id}: write {candidates[0]} or use the oracle",
            "",
            f"a script may also be at {others}; the oracle writes the reference.directory files"
            if others
            else "the oracle writes the reference.directory files",
        )
    return load_script(path, task.row)


def load_script(path: Path, row: dict[str, Any] | None = None) -> Script:
    """Read and validate a script file, substituting `${row.x}` from `row` when given."""
    raw, lines = read_yaml(path)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise TaskConfigError.single(
            path, f"a script must be a YAML mapping, not {type(raw).__name__}", "", "start with `steps:`"
        )
    if row is not None:
        raw = _substituted(raw, row, path)
    return parse_script(raw, path, lines)


def parse_script(raw: Any, source: Path | str, lines: LineMap | None = None) -> Script:
    """Validate a parsed script document; every problem is reported with its field and line."""
    try:
        return Script.model_validate(raw)
    except ValidationError as exc:
        raise TaskConfigError(source, script_problems(exc, lines or {})) from None


def _substituted(raw: dict[str, Any], row: dict[str, Any], path: Path) -> dict[str, Any]:
    """The script with `${row.x}` replaced in every string."""
    try:
        out: dict[str, Any] = substitute_leaves(raw, row)
    except (KeyError, TypeError) as exc:
        message = exc.args[0] if exc.args else str(exc)
        raise TaskConfigError.single(
            path, str(message), "", "every ${row.x} must name a scalar field of every row"
        ) from None
    return out


def oracle_script(task: LoadedTask) -> Script:
    """A script that writes every text file of the task's reference directory, then replies.

    Relative paths are preserved; binary files, symlinks and VCS/cache directories are skipped.
    """
    reference = task.definition.reference
    if reference is None:
        raise TaskConfigError.single(
            task.source_file,
            f"task {task.task_id} has no reference directory to derive an oracle script from",
            "reference",
            "add `reference: {directory: ...}` or write a script file",
        )
    root = task.task_dir / reference.directory
    if not root.is_dir():
        raise TaskConfigError.single(
            task.source_file, f"reference directory {root} does not exist", "reference.directory"
        )
    if reference.solve is not None:  # the harness runs it before the agent (engine/oracle_task.py)
        return Script(steps=[], final_reply="Done: the reference was applied by its solve command.")
    steps: list[StepModel] = [
        WriteFileStep(write_file=WriteFile(path=rel, content=text)) for rel, text in reference_files(root)
    ]
    return Script(steps=steps, final_reply="Done: wrote the reference files.")


def reference_files(root: Path) -> list[tuple[str, str]]:
    """(posix relative path, text) of every regular text file under root, sorted."""
    out: list[tuple[str, str]] = []
    for current, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not Path(current, d).is_symlink())
        for name in sorted(files):
            path = Path(current, name)
            text = _text_of(path)
            if text is not None:
                out.append((path.relative_to(root).as_posix(), text))
    return sorted(out)


def _text_of(path: Path) -> str | None:
    """The file's UTF-8 text, or None for a symlink, a non-regular or a binary file."""
    if path.is_symlink() or not path.is_file():
        return None
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def script_problems(exc: ValidationError, lines: LineMap) -> list[Problem]:
    """One Problem per validation error, with the YAML path and line and a fix where we know one."""
    problems: list[Problem] = []
    for err in exc.errors(include_url=False):
        loc = _clean_loc(tuple(err["loc"]))
        message, hint = _describe(err, loc)
        where = format_loc(loc)
        line = _line_for(loc, lines)
        if line is not None:
            where = f"{where} (line {line})" if where else f"line {line}"
        problem = Problem(message, where, hint)
        if problem not in problems:
            problems.append(problem)
    return problems


def _clean_loc(loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """Drop the union tag pydantic repeats before a step's key (`write_file.write_file` → `write_file`)."""
    out: list[str | int] = []
    for i, part in enumerate(loc):
        if part in STEP_KINDS and i + 1 < len(loc) and loc[i + 1] == part:
            continue
        out.append(part)
    return tuple(out)


def _line_for(loc: tuple[str | int, ...], lines: LineMap) -> int | None:
    """The line of the deepest part of `loc` the YAML file has a line for."""
    for cut in range(len(loc), -1, -1):
        line = lines.get(loc[:cut])
        if line is not None:
            return line
    return None


def _describe(err: Any, loc: tuple[str | int, ...]) -> tuple[str, str]:
    """A message and a hint for one pydantic error."""
    kind = err["type"]
    if kind == "step_kind":
        return _describe_step(err["input"], inside_parallel="parallel" in loc)
    if kind == "extra_forbidden" and loc:
        key = str(loc[-1])
        parent = loc[-3] if len(loc) >= 3 and isinstance(loc[-2], int) else (loc[-2] if len(loc) >= 2 else None)
        owner = ACTION_MODELS.get(str(parent)) if parent is not None else Script
        fields = list(owner.model_fields) if owner is not None else []
        return f"unknown key {key!r}", did_you_mean(key, fields) or (
            f"allowed keys: {', '.join(fields)}" if fields else ""
        )
    if kind == "missing":
        return "required field is missing", ""
    return str(err["msg"]).removeprefix("Value error, "), ""


def _describe_step(value: Any, *, inside_parallel: bool) -> tuple[str, str]:
    """Why a raw step is not a step, and how to write it."""
    allowed = TOOL_STEP_KINDS if inside_parallel else STEP_KINDS
    example = "e.g. `- write_file: {path: a.txt, content: hi}`"
    if not isinstance(value, dict):
        return f"a step must be a one-key mapping, not {type(value).__name__}", example
    if not value:
        return "empty step", f"use one of: {', '.join(allowed)}"
    if len(value) > 1:
        keys = ", ".join(str(k) for k in value)
        return f"a step has exactly one key, this one has {keys}", "split it into one step per key"
    kind = str(next(iter(value)))
    if inside_parallel and kind in STEP_KINDS:
        return f"{kind!r} cannot run inside parallel", f"parallel holds only tool steps: {', '.join(allowed)}"
    return f"unknown step kind {kind!r}", did_you_mean(kind, allowed) or f"use one of: {', '.join(allowed)}"
