"""A unit's grading: the criteria in the guard's hands (grading_guard.py), then post_run, then the digest check.

The orchestrator calls `grade_unit` once the agent's processes are all gone and the reference is
staged. Each criterion sees the reference only when it names it; processes are ended after each
criterion that ran commands and before post_run; every result and post_run's output is scrubbed
of reference content by the unit's one scrubber.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from coder_eval.common.reference_scrub import ReferenceScrubber
from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade
from coder_eval.engine.conversation import apply_early_stop_gate
from coder_eval.engine.grading_guard import SHARE_NAME as REFERENCE_SHARE
from coder_eval.engine.grading_guard import GradingGuard
from coder_eval.engine.hooks import run_post, scrub_command
from coder_eval.engine.reference import ReferenceTamperedError, verify_unchanged
from coder_eval.engine.units import RunUnit
from coder_eval.judges.services import JudgeServices
from coder_eval.models.status import FinalStatus
from coder_eval.sandbox.sandbox import Sandbox

if TYPE_CHECKING:
    from coder_eval.engine.orchestrator import RunOptions, UnitState


def checker(
    sandbox: Sandbox,
    unit: RunUnit,
    reference: Path | None,
    turns: list[Any] | None,
    judges: JudgeServices | None,
    inner: dict[str, str] | None = None,
    guard: GradingGuard | None = None,
    *,
    files_before: frozenset[str] | None = None,
) -> CheckContext:
    return CheckContext(
        root=sandbox.workspace,
        ignore=sandbox.ignore,
        task_dir=unit.task.task_dir,
        reference_dir=reference,
        turns=turns,
        environment=sandbox.live,
        judges=judges,
        command_dirs=inner or {},
        cli_log=sandbox.cli_log,
        scrubber=guard.scrubber if guard is not None else None,
        grading=guard,
        deadline=sandbox.deadline,
        files_before=files_before,
    )


def grade_unit(
    state: UnitState,
    sandbox: Sandbox,
    reference: Path | None,
    digest: str | None,
    options: RunOptions,
    inner: dict[str, str],
    *,
    services_alive: bool = False,
) -> None:
    """Grade the unit (and run post_run) with the staged `reference`; `inner` holds TASK_DIR for commands.

    `services_alive`: the agent's processes were kept running for grading (`sandbox.keep_services`)."""
    # the reference is shared per criterion, to those that see it (grading_guard.py); where none
    # does, no reference content can reach a record and there is nothing to scrub
    seen = any(c.sees_reference for c in state.unit.task.definition.success_criteria)
    scrubber = ReferenceScrubber(reference if seen else None)
    scrubber.forget_known(sandbox.workspace)  # what the agent wrote without the reference is no secret
    if not scrubber.complete:
        state.log.add("grading: the reference is too large to scrub in full; only copies of whole files are caught")
    guard = GradingGuard(sandbox, reference, scrubber, state.log, services_alive=services_alive)
    try:
        _grade_shared(state, sandbox, reference, options, inner, guard)
    finally:
        sandbox.live.unshare(REFERENCE_SHARE)
        state.reference_copies = guard.copies
    try:
        verify_unchanged(reference, digest)
    except ReferenceTamperedError as exc:
        state.grade = None
        state.fail(FinalStatus.ERROR, str(exc))


def _grade_shared(
    state: UnitState,
    sandbox: Sandbox,
    reference: Path | None,
    options: RunOptions,
    inner: dict[str, str],
    guard: GradingGuard,
) -> None:
    definition = state.unit.task.definition
    ctx = checker(
        sandbox, state.unit, reference, state.phase.turns, state.judges, inner, guard, files_before=state.files_before
    )
    pre_run_failed = state.status is FinalStatus.ERROR and not state.phase.turns
    if state.phase.outcome != "ok" or state.status is not None:
        if not pre_run_failed:
            diagnostic = [c for c in definition.success_criteria if c.runs_after_failure]
            state.diagnostics = grade(diagnostic, ctx)  # evidence only; never changes the verdict
    elif options.grade and state.grade is None:
        state.grade = grade(list(definition.success_criteria), ctx)
        apply_early_stop_gate(state, state.grade)
        state.timed_out("grading")
    if options.grade and not pre_run_failed and not state.deadline.expired:
        # post_run follows the verdict and may change the tree, so it runs after grading, once,
        # with nothing of the criteria still running and never with the reference.
        env = {k: v for k, v in inner.items() if k == "TASK_DIR"}
        guard.settle()
        post = run_post(sandbox, definition.post_run, state.log, env)
        state.post_run = [scrub_command(r, guard.scrubber) for r in post]
