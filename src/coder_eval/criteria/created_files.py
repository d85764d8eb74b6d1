"""The files an agent created: the workspace now, less what it held before the agent started.

The engine lists the workspace once set-up and pre_run are done and the agent has not started
(`list_files`, kept as `CheckContext.files_before` and in the unit's record), so a criterion can
tell a file the agent wrote from one the task put there. Paths are workspace-relative, `/`
separated; symbolic links count as files and are never followed. Globs over them follow
`glob_regex`: `*` within one directory, `**/` across any number, `?` one character, anchored.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from coder_eval.errors import CriterionUnavailableError

MAX_LISTED_FILES = 200_000
"""Most files a listing holds; a workspace with more cannot be told apart and is refused."""


class TooManyFilesError(Exception):
    """The workspace holds more files than a listing may."""


def list_files(root: Path, limit: int | None = None) -> list[str]:
    """Every file (and symbolic link) under `root`, relative and sorted; unreadable directories are skipped."""
    limit = MAX_LISTED_FILES if limit is None else limit
    out: list[str] = []
    for current, dirs, names in os.walk(root, followlinks=False):
        rel = Path(current).relative_to(root)
        dirs.sort()
        for name in sorted(names):
            out.append((rel / name).as_posix())
        # a symbolic link to a directory is listed as an entry of its own, never entered
        out.extend((rel / d).as_posix() for d in dirs if Path(current, d).is_symlink())
        if len(out) > limit:
            raise TooManyFilesError(f"the workspace holds more than {limit} files")
    return sorted(out)


def created_files(root: Path, before: frozenset[str] | None) -> list[str]:
    """Files under `root` that were not there before the agent; unavailable without the earlier listing."""
    if before is None:
        raise CriterionUnavailableError(
            "no listing of the workspace from before the agent started (this grading has no agent run of its "
            "own, or the record predates it), so the files the agent created cannot be told apart"
        )
    try:
        now = list_files(root)
    except TooManyFilesError as exc:
        raise CriterionUnavailableError(f"{exc}; the files the agent created cannot be listed") from None
    return [p for p in now if p not in before]


_SPECIAL = frozenset(".+^${}()|[]\\")


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A path glob as an anchored regex: `**/` any directories, `**` anything, `*` one segment's
    characters, `?` one character; everything else literal."""
    out, i = "^", 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif char == "*":
            out, i = out + "[^/]*", i + 1
        elif char == "?":
            out, i = out + ".", i + 1
        else:
            out, i = out + ("\\" + char if char in _SPECIAL else char), i + 1
    return re.compile(out + "$")
