"""`coder-eval flaky --regrade N`: grade each recorded unit's workspace N more times, kept in regrades.json.

Every re-grade works on a fresh copy of the unit's preserved workspace (so one grade's side
effects cannot reach the next, and the record stays as it was), adopted by a fresh environment
of the task's own driver as `evaluate RUN_DIR` does: criteria commands run in the unit's
sandbox, never on the host unless the task's driver is tempdir. The task is the one the record
holds, so commands it would run came from the run directory and need
`--allow-recorded-commands`, as for `evaluate RUN_DIR`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from coder_eval.common.bounded_copy import CopyBudget
from coder_eval.common.ignore import IgnoreRules
from coder_eval.engine.recorded_task import RecordedTask, RegradeError, task_from_record
from coder_eval.engine.regrade_task import graded_workspace, preserved_workspace, recorded_commands
from coder_eval.engine.task_log import TaskLog
from coder_eval.errors import RecordError
from coder_eval.models.regrades import CriterionGrade, Regrade, RunRegrades, UnitRegrades
from coder_eval.models.results import EvaluationResult
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import REGRADES_JSON, SCRATCH_DIR, find_task_results
from coder_eval.records.store import read_task_result
from coder_eval.sandbox.workspace_copy import copy_tree

MAX_REGRADES = 20
"""Re-grades one invocation may ask for per unit."""
Progress = Callable[[str], None]


@dataclass
class GraderCheckOutcome:
    regraded: int = 0
    skipped: list[str] = field(default_factory=list)
    """Units not re-graded, with why (not graded, workspace not preserved, no task to rebuild)."""


def read_regrades(run_dir: Path) -> RunRegrades:
    """The run's regrades.json, or an empty record when there is none; an unreadable file is an error."""
    path = run_dir / REGRADES_JSON
    if not path.is_file():
        return RunRegrades()
    try:
        return RunRegrades.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as exc:
        raise RecordError(
            f"{path} is not a readable re-grade record ({exc.__class__.__name__}); move it away to start afresh"
        ) from None


def _graded(result: EvaluationResult) -> bool:
    return any(c.evaluation_status == "evaluated" for c in result.success_criteria_results)


def _plan(run_dir: Path, allow: bool, outcome: GraderCheckOutcome) -> list[tuple[Path, EvaluationResult, RecordedTask]]:
    """Every graded unit with its rebuilt task; refuses up front when commands from the record would run."""
    planned = []
    for path in find_task_results(run_dir):
        prior = read_task_result(path)
        rel = path.parent.relative_to(run_dir).as_posix()
        if not _graded(prior):
            outcome.skipped.append(f"{rel}: not graded in the run (no criterion was evaluated)")
            continue
        try:
            recorded = task_from_record(prior, path)
        except RegradeError as exc:
            outcome.skipped.append(f"{rel}: {exc}")
            continue
        commands = recorded_commands(recorded.task, prior)
        criteria_commands = [c for c in commands if not c.startswith("post_run:")]  # a re-grade runs no post_run
        if criteria_commands and not allow:
            listed = "; ".join(criteria_commands[:5]) + (
                f" (+{len(criteria_commands) - 5} more)" if len(criteria_commands) > 5 else ""
            )
            raise RegradeError(
                f"{path} would run {len(criteria_commands)} command(s) taken from the record: {listed}. "
                "Re-run with --allow-recorded-commands if you trust this run directory."
            )
        planned.append((path, prior, recorded))
    return planned


def regrade_units(
    run_dir: Path, times: int, *, allow_recorded_commands: bool, progress: Progress
) -> GraderCheckOutcome:
    """Re-grade every graded unit of `run_dir` `times` times; the results join the run's regrades.json."""
    if not 1 <= times <= MAX_REGRADES:
        raise RegradeError(f"--regrade takes 1 to {MAX_REGRADES} re-grades per unit, not {times}")
    outcome = GraderCheckOutcome()
    store = read_regrades(run_dir)
    for path, prior, recorded in _plan(run_dir, allow_recorded_commands, outcome):
        rel = path.parent.relative_to(run_dir).as_posix()
        unit = store.units.get(rel) or UnitRegrades(
            task_id=prior.task_id,
            variant_id=prior.variant_id,
            replicate_index=prior.replicate_index,
            recorded=[CriterionGrade.of(c) for c in prior.success_criteria_results],
        )
        try:
            workspace = preserved_workspace(prior, path.parent)
        except RegradeError as exc:
            outcome.skipped.append(f"{rel}: {exc}")
            continue
        base = path.parent / SCRATCH_DIR
        shutil.rmtree(base, ignore_errors=True)
        try:
            for i in range(times):
                progress(f"re-grading {rel} ({i + 1} of {times})")
                grade = _regrade_copy(prior, recorded, workspace, base / f"grade-{i + 1}", run_dir, path.parent)
                unit.regrades.append(grade)
                outcome.regraded += 1
        finally:  # the grades' private directories, and the task's shared Python environment the first built
            shutil.rmtree(base, ignore_errors=True)
        store.units[rel] = unit
        write_text_atomic(run_dir / REGRADES_JSON, store.model_dump_json(indent=2))  # kept unit by unit
    return outcome


def _regrade_copy(
    prior: EvaluationResult, recorded: RecordedTask, workspace: Path, base: Path, run_dir: Path, out_dir: Path
) -> Regrade:
    """One grade of a fresh copy of `workspace` in `base` (a directory of its own, so nothing of one grade's
    environment reaches the next); a copy that left anything out is not comparable. The copy is removed
    afterwards; `base` stays until the unit's last grade, since the task's shared Python environment is
    built beside the first grade's directories and the later grades reuse it, as a run's units do."""
    at = datetime.now(UTC)
    copy, scratch = base / "regrade-workspace", base / "grading"
    try:
        budget = CopyBudget()
        left_out = copy_tree(workspace, copy, IgnoreRules(()), budget)
        if left_out:
            more = f" (+{len(left_out) - 3} more)" if len(left_out) > 3 else ""
            note = f"the workspace copy left out {', '.join(left_out[:3])}{more}"
            return Regrade(at=at, comparable=False, note=note)
        try:
            with graded_workspace(prior, recorded.task, copy, scratch, run_dir, out_dir, TaskLog()) as (grade, _):
                pass
        except RegradeError as exc:
            return Regrade(at=at, comparable=False, note=str(exc))
        return Regrade(
            at=at,
            final_status=grade.status,
            weighted_score=grade.weighted_score,
            criteria=[CriterionGrade.of(c) for c in grade.results],
        )
    finally:
        shutil.rmtree(copy, ignore_errors=True)
