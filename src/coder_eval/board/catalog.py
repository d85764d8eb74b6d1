"""Which run directories the board shows, under which ids, and what state each is in.

A source given to the board is either one run directory (it holds a `run.json`, or task records
of a run still going) or a directory of runs (`runs/`). Runs are found by listing, never by
joining a request's text onto a path: a request names a run by id and the catalog looks it up.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from coder_eval.records.layout import LATEST_LINK, RUN_JSON, SCRATCH_DIR, TASK_JSON, replicate_dir

RunState = Literal["finished", "running", "incomplete"]
LATEST = LATEST_LINK
STALE_AFTER_SECONDS = 30 * 60
"""A run without run.json whose live workspaces saw no change for this long is taken as dead."""
_TASK_GLOBS = tuple(f"{'*/' * depth}[0-9][0-9]/{TASK_JSON}" for depth in (2, 3, 4))


class RunNotFoundError(Exception):
    """No run of that id is in the catalog."""


@dataclass(frozen=True)
class RunEntry:
    run_id: str
    directory: Path


def looks_like_run(directory: Path) -> bool:
    """A finished run (run.json), one under way (live workspaces), or one killed (task records only).

    Task records alone are ambiguous by depth (`runs/` holds them too, and a task id may contain
    `/`), so the first record found says where its run starts: variant, task id and replicate
    index give the path from the run directory down to it.
    """
    return _has_run_marker(directory) or _record_root(directory) == directory


def _has_run_marker(directory: Path) -> bool:
    return (directory / RUN_JSON).is_file() or (directory / SCRATCH_DIR).is_dir()


def _record_root(directory: Path) -> Path | None:
    for pattern in _TASK_GLOBS:
        for path in directory.glob(pattern):
            try:
                data = json.loads(path.read_bytes())
                rel = replicate_dir(Path(), str(data["variant_id"]), str(data["task_id"]), int(data["replicate_index"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue
            root = path.parent
            for _ in rel.parts:
                root = root.parent
            return root
    return None


def run_state(directory: Path, *, now: float | None = None) -> RunState:
    """finished: run.json written at the end; running: live workspaces changing; incomplete: neither.

    The engine keeps task workspaces under `.sandboxes/` while a run goes and removes them before
    writing run.json, so a run with workspaces that changed recently is still going. One whose
    workspaces went quiet long ago was killed hard and needs `coder-eval aggregate`.
    """
    scratch = directory / SCRATCH_DIR
    if scratch.is_dir():
        newest = _newest_mtime(scratch)
        if (now or time.time()) - newest < STALE_AFTER_SECONDS:
            return "running"
    return "finished" if (directory / RUN_JSON).is_file() else "incomplete"


def _newest_mtime(directory: Path) -> float:
    newest = directory.stat().st_mtime
    try:
        for child in directory.iterdir():
            newest = max(newest, child.lstat().st_mtime)
    except OSError:
        pass
    return newest


class RunCatalog:
    """The runs under the board's sources, listed afresh on each call (a directory listing is cheap)."""

    def __init__(self, sources: list[Path]) -> None:
        self.sources = [s.resolve() for s in sources]

    def runs(self) -> list[RunEntry]:
        found: dict[str, RunEntry] = {}
        for source in self.sources:
            for directory in self._candidates(source):
                run_id = directory.name
                n = 2
                while run_id in found or run_id == LATEST:
                    run_id = f"{directory.name}-{n}"
                    n += 1
                found[run_id] = RunEntry(run_id, directory)
        return list(found.values())

    def _candidates(self, source: Path) -> list[Path]:
        if not source.is_dir():
            return []
        if _has_run_marker(source):
            return [source]
        # Symlinked entries (`latest`, or links to elsewhere) are not runs of this directory.
        children = [c for c in sorted(source.iterdir()) if c.is_dir() and not c.is_symlink() and c.name[0] != "."]
        marked = [c for c in children if _has_run_marker(c)]
        if not marked and _record_root(source) == source:
            return [source]  # one killed run, named directly
        return marked + [c for c in children if c not in marked and _record_root(c) == c]

    def find(self, run_id: str) -> RunEntry:
        runs = self.runs()
        if run_id == LATEST:
            return self._latest(runs)
        for entry in runs:
            if entry.run_id == run_id:
                return entry
        raise RunNotFoundError(run_id)

    def _latest(self, runs: list[RunEntry]) -> RunEntry:
        """The run `runs/latest` points at, else the most recently changed run."""
        for source in self.sources:
            link = source / LATEST
            if link.is_symlink():
                target = link.resolve()
                for entry in runs:
                    if entry.directory == target:
                        return entry
        if not runs:
            raise RunNotFoundError(LATEST)
        return max(runs, key=lambda e: e.directory.stat().st_mtime)
