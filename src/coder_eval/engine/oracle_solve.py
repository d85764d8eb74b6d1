"""The oracle applying a reference that says how (`reference.solve`, a Harbor task's solve.sh).

Harbor's oracle does not copy a solution into the workspace: it puts `solution/` at `/solution`
and runs `solve.sh` in the environment. A unit run as its task's oracle (`RunUnit.oracle`: `run
--oracle`, lint's oracle check) whose reference has `solve` runs that command after pre_run and
before the agent, from the workspace, with REFERENCE_DIR naming a staged copy of the reference
(shown for this command only; the task's read-only view never holds the reference), TASK_DIR and
the command's `env`. Whatever agent plays the oracle then only replies. A failing command ends the
unit ERROR with its reason; its output is kept among the unit's pre_run results.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from coder_eval.engine.grading_guard import SHARE_NAME as REFERENCE_SHARE
from coder_eval.engine.hooks import run_one
from coder_eval.engine.reference import staged_reference
from coder_eval.engine.task_log import TaskLog
from coder_eval.engine.units import RunUnit
from coder_eval.models.results import CommandResult
from coder_eval.models.task_parts import ReferenceConfig
from coder_eval.sandbox.sandbox import Sandbox


def solves(unit: RunUnit) -> bool:
    """Whether this unit's oracle applies the reference by a command."""
    reference = unit.task.definition.reference
    return unit.oracle and reference is not None and reference.solve is not None


def solve_script(reference: ReferenceConfig) -> str:
    """The shell text of the oracle's command (`reference.solve` must be set)."""
    assert reference.solve is not None
    lines = [f"export {name}={shlex.quote(value)}" for name, value in reference.solve.env.items()]
    return "\n".join([*lines, reference.solve.command])


def apply_solve(
    unit: RunUnit, sandbox: Sandbox, reference_dir: Path, log: TaskLog, env: dict[str, str]
) -> tuple[CommandResult, str | None]:
    """Run the reference's solve command with the reference shown; (its result, why it failed)."""
    reference = unit.task.definition.reference
    assert reference is not None and reference.solve is not None
    with staged_reference(reference_dir, task_file=unit.task.source_file) as (staged, _):
        assert staged is not None
        shown = {**env, "REFERENCE_DIR": str(sandbox.live.share(staged, REFERENCE_SHARE))}
        try:
            result = run_one(sandbox, solve_script(reference), reference.solve.timeout, log, "oracle solve", shown)
        finally:
            sandbox.live.unshare(REFERENCE_SHARE)
    if result.error is None:
        return result, None
    tail = (result.stderr or result.stdout).strip()[-500:]
    return result, f"the oracle's solve command failed ({result.error})" + (f": {tail}" if tail else "")
