"""Run one unit end to end: sandbox, pre_run, agent, grading, post_run, records, cleanup."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from coder_eval.agents.base import Agent
from coder_eval.agents.events import StreamCallback
from coder_eval.agents.factory import create_agent
from coder_eval.agents.kind import RouteAddress
from coder_eval.agents.registry import agent_kind
from coder_eval.agents.renderers import compose, log_writer
from coder_eval.criteria.grading import Grade, grade
from coder_eval.engine.agent_phase import AgentPhase, RetryPolicy
from coder_eval.engine.conversation import drive_agent
from coder_eval.engine.files_before import list_before
from coder_eval.engine.finalize import build_result
from coder_eval.engine.gateway_spec import GatewaySpec
from coder_eval.engine.grading_phase import checker, grade_unit
from coder_eval.engine.hooks import run_pre
from coder_eval.engine.judge_link import judge_services
from coder_eval.engine.model_link import ModelLink
from coder_eval.engine.oracle_solve import apply_solve, solves
from coder_eval.engine.provenance import environment_info, task_config_record
from coder_eval.engine.reference import reference_source, staged_reference
from coder_eval.engine.secret_scan import scan_artifacts
from coder_eval.engine.spend import SpendLimit
from coder_eval.engine.task_log import TaskLog
from coder_eval.engine.task_view import TaskViewTamperedError, task_view, verify_view
from coder_eval.engine.unit_network import log_network, note_network
from coder_eval.engine.unit_sandbox import keep_services, note_limits, note_python, unit_sandbox_config, unit_tools
from coder_eval.engine.units import RunUnit
from coder_eval.errors import CoderEvalError
from coder_eval.judges.services import JudgeServices
from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.network import NetworkRecord
from coder_eval.models.results import CommandResult, EarlyStopInfo, EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.records.layout import ARTIFACTS_DIR, CLI_CALLS, SCRATCH_DIR
from coder_eval.sandbox.deadline import Deadline, Watchdog
from coder_eval.sandbox.docker_image import BuildFailedError
from coder_eval.sandbox.drivers import PreservationMode
from coder_eval.sandbox.env_allowlist import withheld_credentials
from coder_eval.sandbox.sandbox import Sandbox
from coder_eval.sandbox.templates import SetupError


@dataclass
class RunOptions:
    run_dir: Path
    grade: bool = True
    preservation: PreservationMode | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    stream_factory: Callable[[RunUnit], StreamCallback] | None = None
    model_link: ModelLink | None = None
    gateway_spec: GatewaySpec | None = None
    """How the run's gateway is built; executors that host their own gateways start them from it."""
    spend: SpendLimit | None = None
    """`--max-cost-usd`: executors launch no unit once it is reached (engine/spend.py)."""


@dataclass
class UnitState:
    """Everything gathered while the unit runs; `finalize.build_result` turns it into a record."""

    unit: RunUnit
    started: datetime
    clock: float
    log: TaskLog
    status: FinalStatus | None = None
    error: str | None = None
    phase: AgentPhase = field(default_factory=AgentPhase)
    grade: Grade | None = None
    diagnostics: Grade | None = None
    pre_run: list[CommandResult] = field(default_factory=list)
    post_run: list[CommandResult] = field(default_factory=list)
    sandbox_path: Path | None = None
    env_info: dict[str, Any] = field(default_factory=dict)
    deadline: Deadline = field(default_factory=lambda: Deadline(None))
    secret_hits: list[str] = field(default_factory=list)
    reference_copies: list[str] = field(default_factory=list)
    task_view: Path | None = None
    """The shared TASK_DIR view this unit's commands were shown, checked again when it ends."""

    judges: JudgeServices | None = None
    early_stop: EarlyStopInfo | None = None
    simulation: dict[str, Any] | None = None
    network: NetworkRecord | None = None
    files_before: frozenset[str] | None = None
    """The workspace's files when the agent started, for criteria on the files it created."""

    def timed_out(self, during: str) -> bool:
        """Mark the unit TIMEOUT when its deadline has passed (True), naming the phase it hit."""
        if not self.deadline.expired:
            return False
        self.phase.outcome = "timeout" if self.phase.outcome == "ok" else self.phase.outcome
        self.fail(FinalStatus.TIMEOUT, f"{self.deadline.describe()} (during {during})")
        return True

    def fail(self, status: FinalStatus, message: str) -> None:
        if self.status is None:
            self.status, self.error = status, message
            self.log.add(f"{status.value}: {message}")


def _reference_dir(unit: RunUnit) -> Path | None:
    return reference_source(unit.task)


def _share_task_dir(state: UnitState, sandbox: Sandbox, run_dir: Path) -> dict[str, str]:
    """TASK_DIR for pre_run, criteria and post_run: the task directory's read-only view (never the agent's).

    Isolating drivers give each unit its own read-only copy of the view, which no unit can reach.
    Under tempdir commands see the view itself, shared by the run's units, so it is checked before
    it is shown (a changed one is replaced) and again after the unit's grading (`_check_task_view`).
    """
    unit = state.unit
    view = task_view(unit.task.task_dir, _reference_dir(unit), run_dir)
    inner = sandbox.live.share(view, "task")
    if Path(inner) != view:  # a private copy: nothing this unit does reaches the shared view
        return {"TASK_DIR": str(inner)}
    try:
        verify_view(view)
    except TaskViewTamperedError as exc:
        state.log.add(f"{exc}; this unit gets a fresh copy")
        view = task_view(unit.task.task_dir, _reference_dir(unit), run_dir)
        inner = sandbox.live.share(view, "task")
    state.task_view = view
    return {"TASK_DIR": str(inner)}


def _check_task_view(state: UnitState, sandbox: Sandbox) -> None:
    """A unit whose commands changed the shared task view or Python environment has a grade nobody can trust."""
    changed = sandbox.shared_env_changed()
    if changed is not None:
        state.fail(FinalStatus.ERROR, f"{changed} while this unit ran; its grade cannot be trusted")
    if state.task_view is None:
        return
    try:
        verify_view(state.task_view)
    except TaskViewTamperedError as exc:
        state.fail(FinalStatus.ERROR, f"{exc} while this unit ran; its grade cannot be trusted")


def _agent_config(unit: RunUnit) -> BaseAgentConfig:
    """The unit's agent config with `system_prompt_file` (relative to the task file) read into system_prompt."""
    config = unit.agent
    if config.system_prompt_file and not config.system_prompt:
        text = (unit.task.task_dir / config.system_prompt_file).read_text(encoding="utf-8")
        config = config.model_copy(update={"system_prompt": text.strip() or None})
    return config


async def _agent_phase(state: UnitState, sandbox: Sandbox, options: RunOptions) -> None:
    unit = state.unit
    try:
        config = _agent_config(unit)
    except OSError as exc:
        state.fail(FinalStatus.ERROR, f"agent.system_prompt_file: {exc}")
        return
    kind = agent_kind(unit.agent.type)
    try:
        # Only a kind that speaks a wire protocol gets a route; the rest bill what they report themselves.
        model_link = options.model_link if kind.protocols and not kind.model_less else None
        link = model_link.open(unit, sandbox.workspace, vocabulary=kind.tools) if model_link is not None else None
    except CoderEvalError as exc:  # e.g. no script for this task under --backend script
        state.fail(FinalStatus.ERROR, str(exc))
        return
    env = {**sandbox.env(), **(link.env if link else {})}
    if link is not None and link.address is not None:
        # the route as the agent reaches it from inside (a network-less sandbox bridges it in)
        # (under bubblewrap this starts the unit's namespaces: a worker thread, so other units' turns go on)
        reached = await asyncio.to_thread(sandbox.live.reach, link.address.base_url)
        inside = RouteAddress(reached, link.address.token)
        env.update(kind.env_for(inside))
    try:
        agent: Agent[Any] = create_agent(unit.agent.type, config, task_id=unit.task_id, env=env)
    except LookupError as exc:  # a kind whose schema is known but whose runner is not installed
        if link is not None:
            link.finish(state.phase, state.env_info, state.log)
        state.fail(FinalStatus.ERROR, f"{exc}; run it with another --type or install the agent's plugin")
        return
    try:
        await agent.start(sandbox.live)
        state.env_info.update(agent.environment_info())
        terminal = options.stream_factory(unit) if options.stream_factory else None
        stream = compose(log_writer(state.log.add), terminal)
        grader = partial(_grade_now, state, sandbox)
        await drive_agent(agent, state, stream, options.retry, grader)
    finally:
        if type(agent).kill_sync is not Agent.kill_sync:  # an agent without processes needs no thread hop
            await asyncio.to_thread(agent.kill_sync)
        await agent.stop()
        if link is not None:
            link.finish(state.phase, state.env_info, state.log)


def _prepare_and_pre_run(state: UnitState, sandbox: Sandbox, options: RunOptions) -> str | None:
    """The record directory, the sandbox and pre_run, in one worker-thread hop; pre_run's failure, if any.

    pre_run commands are bounded by the deadline inside the environment, so this thread returns by
    then and its results are kept (cancelling the await would leave the thread running).
    """
    _fresh_dir(state.unit.directory(options.run_dir))
    state.env_info["python_env"] = sandbox.python.info  # filled in as the unit's environment is made
    sandbox.setup()
    state.log.add(f"sandbox ready at {sandbox.workspace}")
    note_python(sandbox, state.log)
    for withheld in withheld_credentials(passthrough=sandbox.config.passthrough()):
        state.log.add(withheld.message())
    note_limits(sandbox, state.env_info, state.log)
    note_network(sandbox, state.log)
    if not _has_pre_run(state.unit):
        return None
    sandbox.network_phase("pre_run")
    state.pre_run, failure = _pre_run(state, sandbox, options.run_dir)
    return failure


async def _pre_and_agent(state: UnitState, sandbox: Sandbox, options: RunOptions) -> None:
    failure = await asyncio.to_thread(_prepare_and_pre_run, state, sandbox, options)
    if _has_pre_run(state.unit) and state.timed_out("pre_run"):
        return
    if failure is not None:
        state.fail(FinalStatus.ERROR, failure)
        return
    if any(c.needs_files_before for c in state.unit.task.definition.success_criteria):
        state.files_before = await asyncio.to_thread(list_before, sandbox.workspace, state.env_info, state.log)
    sandbox.network_phase("agent")
    try:
        async with asyncio.timeout(state.deadline.remaining()):
            await _agent_phase(state, sandbox, options)
    except TimeoutError:
        state.phase.outcome = "timeout"
        state.fail(FinalStatus.TIMEOUT, f"{state.deadline.describe()} (during the agent)")


def _pre_run(state: UnitState, sandbox: Sandbox, run_dir: Path) -> tuple[list[CommandResult], str | None]:
    """pre_run with TASK_DIR shared for its duration only (one worker-thread hop for all three steps)."""
    env = _share_task_dir(state, sandbox, run_dir)
    try:
        results, failure = run_pre(sandbox, state.unit.task.definition.pre_run, state.log, env)
        reference = _reference_dir(state.unit)
        if failure is None and solves(state.unit) and reference is not None:
            solved, failure = apply_solve(state.unit, sandbox, reference, state.log, env)
            results.append(solved)
        return results, failure
    finally:
        sandbox.live.unshare("task")


def _has_pre_run(unit: RunUnit) -> bool:
    """pre_run steps, or the oracle's solve command (which runs after them)."""
    return bool(unit.task.definition.pre_run) or solves(unit)


def _grade_now(state: UnitState, sandbox: Sandbox) -> Grade:
    """Grade the sandbox as it is now (dialog mode checks criteria between exchanges)."""
    reference = state.judges.reference_dir if state.judges is not None else None
    ctx = checker(sandbox, state.unit, reference, state.phase.turns, state.judges, files_before=state.files_before)
    return grade(list(state.unit.task.definition.success_criteria), ctx)


async def _run_in_sandbox(state: UnitState, sandbox: Sandbox, options: RunOptions) -> None:
    state.judges = judge_services(state.unit, options.model_link, state.unit.directory(options.run_dir))
    if any(c.type == "agent_judge" and not c.is_disabled for c in state.unit.task.definition.success_criteria):
        from coder_eval.engine.judge_agent import JudgeAgentRunner  # Claude Code's modules, only when judged by it

        state.judges.agent_runner = JudgeAgentRunner(sandbox, state.judges, state.unit.task_id)
    await _pre_and_agent(state, sandbox, options)
    await asyncio.to_thread(_stage_and_grade, state, sandbox, options)


def _stage_and_grade(state: UnitState, sandbox: Sandbox, options: RunOptions) -> None:
    """After the agent phase, in one worker-thread hop: end its processes, stage the reference, grade."""
    # Every process the agent left (detached ones too) ends before the reference exists anywhere,
    # unless the task keeps its services for grading under a driver that hides the staged reference.
    alive = keep_services(sandbox, state.log)
    breach = sandbox.limit_breach()
    if breach is not None:
        state.fail(FinalStatus.ERROR, breach)
    sandbox.network_phase("grading")
    sandbox.sync_cli_copy()  # the criteria read the harness's record of the CLI calls, not the unit's
    _log_sandbox_notes(state, sandbox)
    with staged_reference(_reference_dir(state.unit), task_file=state.unit.task.source_file) as (reference, digest):
        if state.judges is not None:
            state.judges.reference_dir = reference
        definition = state.unit.task.definition
        commands = bool(definition.post_run) or any(c.type in _COMMAND_CRITERIA for c in definition.success_criteria)
        # only commands see TASK_DIR (sharing it costs a copy into isolating sandboxes)
        inner = _share_task_dir(state, sandbox, options.run_dir) if commands else {}
        grade_unit(state, sandbox, reference, digest, options, inner, services_alive=alive)
    _check_task_view(state, sandbox)


_COMMAND_CRITERIA = frozenset({"run_command", "harbor_verifier"})
"""Criterion types whose commands read TASK_DIR."""


def _log_sandbox_notes(state: UnitState, sandbox: Sandbox) -> None:
    for note in sandbox.notes:
        state.log.add(note)
    sandbox.notes.clear()


def _finish_and_record(
    state: UnitState, sandbox: Sandbox | None, options: RunOptions, out_dir: Path, record: dict[str, Any]
) -> EvaluationResult:
    """End the unit's processes, keep or drop the workspace, scan what was kept, write the record (one hop)."""
    if sandbox is not None and sandbox.root is not None:
        # every process of the unit is gone (finish kills them) before the record is written
        state.sandbox_path = sandbox.finish()
        _log_sandbox_notes(state, sandbox)
        for note in sandbox.request.notes:  # files a bounded copy left out, say
            state.log.add(note)
        breach = sandbox.limit_breach()  # measured once more as the unit ended
        if breach is not None:
            state.fail(FinalStatus.ERROR, breach)
        state.secret_hits = scan_artifacts(state.sandbox_path)
        if state.secret_hits:
            state.log.add(f"credentials found in preserved files (kept as evidence): {state.secret_hits}")
        state.network = log_network(sandbox.network_record(), state.log)
    return build_result(state, options, out_dir, record)


def _fresh_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True)
    except FileExistsError:  # a rerun of the unit: start from an empty directory
        shutil.rmtree(path)
        path.mkdir(parents=True)


async def run_unit(unit: RunUnit, options: RunOptions) -> EvaluationResult:
    """Run one unit and write its task.json and task.log. Never raises for task-level problems."""
    out_dir = unit.directory(options.run_dir)
    clock = time.monotonic()
    deadline = Deadline(unit.task.definition.run_limits.task_timeout, start=clock)
    state = UnitState(unit, datetime.now(UTC), clock, TaskLog(), env_info=environment_info(), deadline=deadline)
    state.log.add(
        f"task {unit.task_id} (variant {unit.variant_id}, replicate {unit.replicate_index:02d}), "
        f"agent {unit.agent.type}"
    )
    for warning in unit.task.warnings:  # what the task file says that was ignored or read in a legacy form
        state.log.add(f"warning: {unit.task.source_file.name}: {warning.render()}")
    sandbox: Sandbox | None = None
    watchdog: Watchdog | None = None
    try:
        sandbox = Sandbox(
            unit_sandbox_config(unit, state.log),
            task_dir=unit.task.task_dir,
            task_file=unit.task.source_file,
            artifacts_dir=out_dir / ARTIFACTS_DIR,
            mode=options.preservation,
            base_env=None,
            scratch=options.run_dir / SCRATCH_DIR,
            deadline=deadline,
            tools=unit_tools(unit, options.run_dir),
            runs_agent=unit.agent.type != "none",
            cli_log=out_dir / CLI_CALLS,
        )
        watchdog = Watchdog(deadline, sandbox.kill_processes, asyncio.get_running_loop())
        await _run_in_sandbox(state, sandbox, options)
    except BuildFailedError as exc:
        state.fail(FinalStatus.BUILD_FAILED, f"{exc}; last lines of the build log:\n{exc.log}")
    except (SetupError, CoderEvalError) as exc:
        if not state.timed_out("sandbox set-up"):
            state.fail(FinalStatus.ERROR, f"sandbox setup failed: {exc}")
    except Exception as exc:  # a bug in one unit must not take the batch (and its records) down
        import traceback

        state.log.add(traceback.format_exc())
        state.fail(FinalStatus.ERROR, f"internal error in Coder Eval ({exc.__class__.__name__}: {exc}); see task.log")
    finally:
        if watchdog is not None:
            watchdog.cancel()
    record = {**task_config_record(unit.task), "lineage": unit.lineage}
    return await asyncio.to_thread(_finish_and_record, state, sandbox, options, out_dir, record)
