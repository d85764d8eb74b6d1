"""Resume: which units are finished, which still owe a grade, which must (re)run."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.engine.fingerprint import changed_fields, unit_fingerprint
from coder_eval.engine.units import RunUnit
from coder_eval.errors import RecordError, UsageError
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.records.compact import HeldResults
from coder_eval.records.layout import ARTIFACTS_DIR, SCRATCH_DIR, TASK_JSON
from coder_eval.records.store import read_task_result


@dataclass
class ResumePartition:
    to_run: list[RunUnit] = field(default_factory=list)
    to_grade: list[tuple[RunUnit, EvaluationResult]] = field(default_factory=list)
    done: list[EvaluationResult] = field(default_factory=list)
    changed: list[tuple[RunUnit, list[str]]] = field(default_factory=list)
    """Finished units whose configuration changed since they ran (rerun under --allow-changed)."""


def owes_grade(result: EvaluationResult) -> bool:
    """Executed but never graded: NOT_GRADED rows (not crashes, which already carry their verdict)."""
    return result.final_status is FinalStatus.NOT_GRADED and not result.success_criteria_results


def partition(units: list[RunUnit], run_dir: Path, *, grade: bool, allow_changed: bool = False) -> ResumePartition:
    """A unit with a readable task.json is finished; under `run`, an ungraded one is graded instead.

    A finished unit whose configuration fingerprint differs from its record's is refused
    (UsageError naming the fields) unless `allow_changed`, which reruns it instead.
    """
    out = ResumePartition()
    for unit in units:
        path = unit.directory(run_dir) / TASK_JSON
        try:
            prior = read_task_result(path) if path.is_file() else None
        except RecordError:
            prior = None
        changed = changed_fields(prior.config_fingerprint, unit_fingerprint(unit)) if prior else []
        if changed:
            out.changed.append((unit, changed))
        if prior is None or changed:
            out.to_run.append(unit)
        elif grade and owes_grade(prior):
            out.to_grade.append((unit, prior))
        else:
            out.done.append(prior)
    if out.changed and not allow_changed:
        raise UsageError(_changed_message(out.changed, run_dir))
    return out


@dataclass
class Recorded:
    """What a run keeps of the units already recorded in its directory (under --resume).

    `settle` is asked once for a fixed run's units and once per round of an adaptive one: the
    finished units of `wanted` are kept (`prior`, which the reports read, and `on_kept`), the
    ungraded ones are graded now, and the rest are returned to run."""

    run_dir: Path
    resume: bool
    grade: bool
    allow_changed: bool = False
    prior: HeldResults = field(default_factory=HeldResults)
    on_kept: Callable[[list[EvaluationResult]], None] | None = None

    def settle(self, wanted: list[RunUnit]) -> list[RunUnit]:
        if not self.resume:
            return wanted
        split = partition(wanted, self.run_dir, grade=self.grade, allow_changed=self.allow_changed)
        kept = split.done + regrade_owed(split.to_grade, self.run_dir)
        self.prior.extend(kept)
        if self.on_kept is not None:
            self.on_kept(kept)
        return split.to_run


def regrade_owed(owed: list[tuple[RunUnit, EvaluationResult]], run_dir: Path) -> list[EvaluationResult]:
    """Grade the units `execute` left ungraded; a grading that fails keeps the record, with the reason."""
    from coder_eval.engine.regrade_task import RegradeError, regrade_in_place

    out = []
    for unit, prior in owed:
        try:
            out.append(regrade_in_place(prior, unit.task, unit.directory(run_dir), run_dir))
        except RegradeError as exc:
            note = f"grading on resume failed: {exc}"
            out.append(prior.model_copy(update={"error_message": "; ".join(filter(None, [prior.error_message, note]))}))
    return out


def _changed_message(changed: list[tuple[RunUnit, list[str]]], run_dir: Path) -> str:
    shown = [f"{u.task_id} ({u.variant_id}, replicate {u.replicate_index}): {', '.join(f)}" for u, f in changed[:10]]
    more = f" and {len(changed) - 10} more" if len(changed) > 10 else ""
    return (
        f"--resume: {len(changed)} finished unit(s) in {run_dir} ran under a different configuration than the "
        f"task files give now, so their grades would not be comparable: {'; '.join(shown)}{more}. "
        "Undo the edit, start a new run directory, or pass --allow-changed to rerun those units."
    )


def clear_leftovers(run_dir: Path) -> None:
    """Drop the live workspaces and temporary files an interrupted run left behind."""
    from coder_eval.engine.task_view import remove_views
    from coder_eval.sandbox.task_envs import remove_shared_envs
    from coder_eval.sandbox.unit_limits import drain_cgroups

    remove_views()
    remove_shared_envs()
    drain_cgroups()  # cgroups of finished units the kernel had not emptied yet
    shutil.rmtree(run_dir / SCRATCH_DIR, ignore_errors=True)
    # Half-written records (`.name.<hex>.tmp`) sit beside records, never inside a preserved
    # workspace, so those (which can hold whole dependency trees) are not walked.
    for root, dirs, files in os.walk(run_dir):
        dirs[:] = [d for d in dirs if d not in (ARTIFACTS_DIR, SCRATCH_DIR)]
        for name in files:
            if name.startswith(".") and name.endswith(".tmp"):
                tmp = Path(root, name)
                if tmp.is_file() and not tmp.is_symlink():
                    tmp.unlink(missing_ok=True)
