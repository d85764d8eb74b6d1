"""Names and places of the files in a run directory (one definition for every reader and writer)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

TASK_JSON = "task.json"
TASK_EXECUTE_JSON = "task.execute.json"
TASK_LOG = "task.log"
CLI_CALLS = "cli_calls.jsonl"
"""The harness's log of a unit's record_cli calls (the one `cli_called` reads), beside task.json."""
RUN_JSON = "run.json"
RUN_MD = "run.md"
RUN_PLAN = "run-plan.json"
"""Written when a run starts (units planned, units to run now) so a live view can show the total;
removed once run.json, which carries the same figures, is written."""
REGRADES_JSON = "regrades.json"
"""Re-grades of the run's units (`coder-eval flaky --regrade`), at the run's root."""
SUITE_JSON = "suite.json"
SUITE_MD = "suite.md"
ARTIFACTS_DIR = "artifacts"
LATEST_LINK = "latest"
SCRATCH_DIR = ".sandboxes"
"""Live workspaces of running tasks; moved into artifacts/ when a task ends."""
DEFAULT_RUNS_DIR = "runs"


def new_run_id(now: datetime | None = None) -> str:
    return (now or datetime.now()).strftime("%Y-%m-%d_%H-%M-%S")


def replicate_dir(run_dir: Path, variant_id: str, task_id: str, replicate_index: int) -> Path:
    """runs/<run>/<variant>/<task>[/<row>]/<NN>/ — a dataset row id is one more level."""
    return run_dir / variant_id / Path(*task_id.split("/")) / f"{replicate_index:02d}"


def suite_dir(run_dir: Path, variant_id: str, suite_id: str) -> Path:
    """<run_dir>/<variant>/<suite_id>/: the parent of a dataset suite's row directories."""
    return run_dir / variant_id / Path(*suite_id.split("/"))


def default_run_dir(runs_root: Path, run_id: str) -> Path:
    """A fresh timestamped run directory; a suffix keeps two runs in one second apart."""
    candidate = runs_root / run_id
    n = 1
    while candidate.exists():
        candidate = runs_root / f"{run_id}_{n}"
        n += 1
    return candidate


def point_latest(runs_root: Path, run_dir: Path) -> None:
    """Repoint runs/latest at `run_dir` (atomically; best effort on filesystems without links)."""
    link = runs_root / LATEST_LINK
    tmp = runs_root / f".{LATEST_LINK}.{os.getpid()}"
    try:
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(run_dir.name if run_dir.parent.resolve() == runs_root.resolve() else run_dir.resolve())
        os.replace(tmp, link)
    except OSError:
        tmp.unlink(missing_ok=True)


def find_run_files(run_dir: Path, *names: str) -> list[Path]:
    """Every file with one of `names` under a run directory, sorted, outside preserved workspaces.

    Nothing under an `artifacts/` or `.sandboxes/` directory is a record of the run (the agent
    wrote it), so the walk does not enter them: they hold most of a run's entries. A directory
    that cannot be listed is skipped, and symbolic links to directories are not followed.
    """
    found: list[tuple[str, ...]] = []  # relative parts: sorting them sorts the paths as Path does
    pending: list[tuple[str, tuple[str, ...]]] = [(str(run_dir), ())]
    while pending:
        directory, parts = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            if entry.name in names and (not entry.is_symlink() or os.path.exists(entry.path)):
                found.append((*parts, entry.name))
            if entry.name in (ARTIFACTS_DIR, SCRATCH_DIR):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                pending.append((entry.path, (*parts, entry.name)))
    return [run_dir.joinpath(*parts) for parts in sorted(found)]


def find_task_results(run_dir: Path) -> list[Path]:
    """Every task.json under a run directory, excluding preserved sandboxes."""
    return find_run_files(run_dir, TASK_JSON)
