"""`evaluate TASK.yaml RUN_DIR[/.../unit]`: re-grade recorded units with the operator's (edited) task file.

The trajectory and the preserved workspace come from the run; the criteria, ignore rules,
reference and post_run come from TASK.yaml, which the operator chose, so its commands run without
`--allow-recorded-commands`. Only records whose task id is the file's (a dataset's rows: one of
its row ids) are graded; when none is, nothing is touched and the refusal names both sides. The
pre-grade record stays as task.execute.json, and the run's run.json/run.md are rebuilt.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.engine.recorded_task import RegradeError
from coder_eval.engine.regrade_run import rebuild_summary
from coder_eval.engine.regrade_task import regrade_in_place
from coder_eval.errors import RecordError, UsageError
from coder_eval.loading.loader import LoadedTask, expand_dataset, load_task_file
from coder_eval.models.results import EvaluationResult
from coder_eval.models.run import RunSummary
from coder_eval.records.layout import ARTIFACTS_DIR, RUN_JSON, SCRATCH_DIR, TASK_JSON, find_task_results
from coder_eval.records.store import read_task_result, read_task_results

_RUN_ROOT_DEPTH = 8
"""How far above a unit directory the run's root (the directory holding run.json) is looked for."""


@dataclass
class EditedRegrade:
    graded: list[EvaluationResult] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    untouched: dict[str, int] = field(default_factory=dict)
    """Task id -> records under the target left as they were (another task's)."""
    run_root: Path | None = None
    summary: RunSummary | None = None


_SEARCH_DEPTH = 4
"""A run's records sit at <variant>/<task>[/<row>]/<NN>/: deeper than this under WORKDIR is not a run."""


def _record_below(directory: Path, depth: int) -> Path | None:
    """The first task.json at most `depth` levels below `directory`, skipping preserved workspaces."""
    if (directory / TASK_JSON).is_file():
        return directory / TASK_JSON
    if depth == 0:
        return None
    try:
        children = sorted(e.path for e in os.scandir(directory) if e.is_dir(follow_symlinks=False))
    except OSError:
        return None
    for child in children:
        if Path(child).name in (ARTIFACTS_DIR, SCRATCH_DIR):
            continue
        found = _record_below(Path(child), depth - 1)
        if found is not None:
            return found
    return None


def holds_records(path: Path) -> bool:
    """Whether `path` is a run or part of one: a task record at most a few levels down that reads as one.

    The search is bounded, so a large work directory (a checkout with node_modules) costs little.
    """
    if not path.is_dir():
        return False
    record = _record_below(path, _SEARCH_DEPTH)
    if record is None:
        return False
    try:
        read_task_result(record)
    except RecordError:
        return False
    return True


def run_root(target: Path) -> Path:
    """The run directory `target` belongs to: the nearest directory at or above it holding run.json."""
    current = target.resolve()
    for _ in range(_RUN_ROOT_DEPTH):
        if (current / RUN_JSON).is_file():
            return current
        if current.parent == current:
            break
        current = current.parent
    return target.resolve()


def _tasks_of(task_file: Path, row: str | None) -> dict[str, LoadedTask]:
    if task_file.is_dir():
        raise UsageError(f"{task_file} is a directory; pass one task YAML file")
    definition, raw = load_task_file(task_file)
    tasks = expand_dataset(definition, raw, task_file)
    if row is not None:
        tasks = [t for t in tasks if t.row_id == row]
        if not tasks:
            raise UsageError(f"{task_file} has no dataset row {row!r}")
    return {t.task_id: t for t in tasks}


def _note(task_file: Path) -> str:
    digest = hashlib.sha256(task_file.read_bytes()).hexdigest()[:12]
    return (
        f"re-graded with the operator's task file {task_file} (sha256 {digest}): its criteria, not the run's; "
        "variant and -D overrides of the run were not applied"
    )


def regrade_with_task(task_file: Path, target: Path, *, row: str | None = None) -> EditedRegrade:
    """Grade every record under `target` whose task is `task_file`'s; refuse when there is none."""
    tasks = _tasks_of(task_file, row)
    outcome = EditedRegrade()
    matched: list[tuple[Path, EvaluationResult, LoadedTask]] = []
    for path in find_task_results(target):
        prior = read_task_result(path)
        task = tasks.get(prior.task_id)
        if task is None:
            outcome.untouched[prior.task_id] = outcome.untouched.get(prior.task_id, 0) + 1
        else:
            matched.append((path, prior, task))
    if not matched:
        theirs = ", ".join(sorted(outcome.untouched)) or "nothing"
        ours = ", ".join(sorted(tasks)[:5]) + (" ..." if len(tasks) > 5 else "")
        raise RegradeError(
            f"{task_file} is task {ours}, but {target} holds records of {theirs}: the task id does not match "
            "the run, so nothing was graded. Pass the task file this run executed (edited as you like, "
            "with the same task_id), or a unit directory of that task."
        )
    note = _note(task_file)
    root = run_root(target)
    for path, prior, task in matched:
        try:
            outcome.graded.append(regrade_in_place(prior, task, path.parent, root, note=note))
        except RegradeError as exc:
            outcome.failures.append(str(exc))
    root = run_root(target)
    # a unit of a run that never wrote run.json has no summary to rebuild (`aggregate` makes one)
    if (root / RUN_JSON).is_file() or not (root / TASK_JSON).is_file():
        outcome.run_root = root
        results, _ = read_task_results(root)
        outcome.summary = rebuild_summary(root, results)
    return outcome


__all__ = ["EditedRegrade", "holds_records", "regrade_with_task", "run_root"]
