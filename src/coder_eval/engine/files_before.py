"""The workspace's files when the agent starts, for criteria on the files it created (`file_created`,
`output_matches` over `created_files`).

Listed on the host once set-up and pre_run are done, before the agent runs, and kept in the unit's
record (`environment_info.files_before_agent`) so a later re-grade compares with the same list. A
workspace too large to list (or to record) leaves those criteria unable to run: an ERROR with the
reason, never a guess.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coder_eval.criteria.created_files import TooManyFilesError, list_files
from coder_eval.engine.task_log import TaskLog

RECORD_KEY = "files_before_agent"
MAX_RECORDED = 20_000
"""Most paths kept in the record; a longer listing is used for this grading but not kept for re-grading."""


def list_before(workspace: Path, env_info: dict[str, Any], log: TaskLog) -> frozenset[str] | None:
    """The listing (None when the workspace holds too many files), noted in the log and the record."""
    try:
        files = list_files(workspace)
    except TooManyFilesError as exc:
        log.add(f"created-file criteria: {exc}; they cannot run")
        env_info[RECORD_KEY] = None
        return None
    log.add(f"created-file criteria: {len(files)} file(s) in the workspace before the agent")
    env_info[RECORD_KEY] = files if len(files) <= MAX_RECORDED else None
    return frozenset(files)


def recorded_before(env_info: dict[str, Any] | None) -> frozenset[str] | None:
    """The listing a unit's record kept, if it kept one."""
    files = (env_info or {}).get(RECORD_KEY)
    if isinstance(files, list) and all(isinstance(f, str) for f in files):
        return frozenset(files)
    return None
