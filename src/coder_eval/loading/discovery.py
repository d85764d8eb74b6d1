"""Find task files from paths, globs and directories."""

from __future__ import annotations

import glob
import re
from pathlib import Path

from coder_eval.errors import UsageError

_TASK_MARKER = re.compile(rb"^task_id\s*:", re.MULTILINE)
_GLOB_CHARS = set("*?[")


def is_task_file(path: Path) -> bool:
    """A YAML file whose top level carries `task_id:`."""
    try:
        with path.open("rb") as fh:
            return bool(_TASK_MARKER.search(fh.read(1 << 20)))
    except OSError:
        return False


def _yaml_files_under(directory: Path) -> list[Path]:
    found = [p for ext in ("*.yaml", "*.yml") for p in directory.rglob(ext) if p.is_file()]
    return sorted(p for p in found if is_task_file(p))


def discover_task_files(paths: list[str], *, cwd: Path | None = None) -> list[Path]:
    """Expand paths, globs and directories (recursively) into task files, in order, once each.

    A literal path that exists is taken as is; otherwise a path with glob characters
    is expanded relative to the current directory. With no paths, `tasks/` is searched.
    """
    base = cwd or Path.cwd()
    if not paths:
        default = base / "tasks"
        if not default.is_dir():
            raise UsageError(
                "no task paths given and there is no tasks/ directory here; pass task files or directories"
            )
        paths = [str(default)]
    out: list[Path] = []
    for raw in paths:
        candidate = Path(raw) if Path(raw).is_absolute() else base / raw
        if candidate.is_dir():
            out.extend(_yaml_files_under(candidate))
        elif candidate.is_file():
            out.append(candidate)
        elif _GLOB_CHARS & set(raw):
            matches = sorted(Path(m) for m in glob.glob(str(candidate), recursive=True))
            if not matches:
                raise UsageError(f"Task file not found: {raw} (the pattern matched nothing)")
            for m in matches:
                out.extend(_yaml_files_under(m) if m.is_dir() else [m])
        else:
            raise UsageError(f"Task file not found: {raw}")
    seen: set[Path] = set()
    unique: list[Path] = []
    for p in out:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique
