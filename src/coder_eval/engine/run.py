"""The body shared by `run` and `execute`: load, plan units, run the batch, write the run records."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from coder_eval.agents.events import StreamCallback
from coder_eval.common.process import kill_running_commands
from coder_eval.engine.adaptive import AdaptiveRounds, check_resumable, execute
from coder_eval.engine.batch import BatchObserver
from coder_eval.engine.executors import get_executor
from coder_eval.engine.experiment_plan import PlanInputs, plan_units
from coder_eval.engine.gateway_spec import GatewaySpec, gateway_spec, resolve_backend
from coder_eval.engine.model_link import ModelLink
from coder_eval.engine.orchestrator import RunOptions
from coder_eval.engine.report_files import write_experiment_reports, write_junit, write_run_files
from coder_eval.engine.resume import Recorded, clear_leftovers
from coder_eval.engine.route_check import RunRoutes
from coder_eval.engine.selection import refuse_empty, refuse_invalid
from coder_eval.engine.unit_checks import RunChoices, check_backend_flags, check_units, show_warnings
from coder_eval.engine.units import RunUnit
from coder_eval.errors import TaskConfigError, UsageError
from coder_eval.loading.compat import LoadWarning
from coder_eval.loading.loader import LoadedTask, SelectOptions, load_tasks
from coder_eval.models.adaptive import AdaptiveRecord
from coder_eval.models.experiment import ExperimentDefinition
from coder_eval.models.run import RunSummary
from coder_eval.models.turns import over_expected_turns
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.compact import HeldResults, held_from_run_dir
from coder_eval.records.layout import DEFAULT_RUNS_DIR, RUN_PLAN, default_run_dir, new_run_id, point_latest
from coder_eval.sandbox.drivers import PreservationMode

if TYPE_CHECKING:
    from coder_eval.engine.spend import SpendLimit
    from coder_eval.gateway.providers import ProviderSet
    from coder_eval.gateway.server import GatewayThread
    from coder_eval.models.criteria_base import BaseCriterion
    from coder_eval.models.suite import SuiteRollup


@dataclass
class RunRequest:
    paths: list[str]
    select: SelectOptions = field(default_factory=SelectOptions)
    max_parallel: int = 1
    repeats: int | Literal["auto"] | None = None
    type_override: str | None = None
    experiment: str | None = None
    sets: tuple[str, ...] = ()
    model: str | None = None
    driver: str | None = None
    run_dir: Path | None = None
    preservation: PreservationMode | None = None
    grade: bool = True
    resume: bool = False
    allow_changed: bool = False
    junit_xml: Path | None = None
    backend: str | None = None
    oracle: bool = False
    cassettes: Path | None = None
    stream_factory: Callable[[RunUnit], StreamCallback] | None = None
    executor: str = "local"
    executor_settings: object | None = None
    """Settings for the executor (e.g. RaySettings for `ray`); None for its defaults."""
    max_cost_usd: float | None = None
    """Stop launching units once the run's priced spend reaches this (engine/spend.py)."""
    max_repeats: int | None = None
    confidence: float | None = None
    effect_size: float | None = None
    """Adaptive replicates (`repeats="auto"`): the cap, the confidence and the effect of interest."""

    def plan_inputs(self) -> PlanInputs:
        """What the command line contributes to resolving the tasks (engine/experiment_plan.py)."""
        r = self
        return PlanInputs(
            r.experiment,
            r.sets,
            r.model,
            r.driver,
            r.type_override,
            r.repeats,
            r.max_repeats,
            r.confidence,
            r.effect_size,
        )


@dataclass
class RunOutcome:
    run_dir: Path
    summary: RunSummary
    """Counts and figures of the run; its rows are in run.json (`rows()` reads them back)."""
    load_errors: list[TaskConfigError]
    results: HeldResults
    """The compact copy of every unit's record, read back one at a time (iterate it or call `ordered()`)."""
    over_expected: list[dict[str, Any]] = field(default_factory=list)
    """The run.json rows that used more agent turns than their expected_turns (a soft target)."""

    @property
    def exit_code(self) -> int:
        if self.load_errors:
            return 2
        if not self.suite_gates_ok or self.stopped_reason:
            return 1  # a run stopped at its spend limit is incomplete
        s = self.summary
        return 0 if s.tasks_failed == s.tasks_error == 0 and (not self.grading or s.tasks_not_graded == 0) else 1

    def rows(self) -> Iterator[dict[str, Any]]:
        """run.json's rows in order, rebuilt one at a time from the held copies."""
        from coder_eval.records.summary import task_row

        return (task_row(r) for r in self.results.ordered())

    grading: bool = True
    """False for `execute`: rows not graded are expected then."""
    suite_gates_ok: bool = True
    failed_gates: list[str] = field(default_factory=list)
    """`variant/suite: detail` for every suite gate that failed (they make the exit code 1)."""
    verdicts: list[str] = field(default_factory=list)
    """The experiment's comparison verdicts, one line per compared arm (empty for a single arm)."""
    stopped_reason: str | None = None
    """Why the run stopped launching units before the end (the spend limit), else None."""
    adaptive: AdaptiveRecord | None = None
    """Adaptive replicates: how far the rounds went and what they spent against the fixed design."""


def _run_dir(request: RunRequest) -> Path:
    if request.resume:
        if request.run_dir is None:
            raise UsageError("--resume needs --run-dir pointing at the run to continue")
        if not request.run_dir.is_dir():
            raise UsageError(f"--resume: run directory {request.run_dir} does not exist")
        return request.run_dir
    if request.run_dir is not None:
        if request.run_dir.exists() and not request.run_dir.is_dir():
            raise UsageError(
                f"--run-dir {request.run_dir} exists and is not a directory; name a new or existing directory"
            )
        return request.run_dir
    return default_run_dir(Path(DEFAULT_RUNS_DIR), new_run_id())


def _speaks_to_a_model(kind_name: str) -> bool:
    from coder_eval.agents.registry import AGENTS

    kind = AGENTS.find(kind_name)
    return kind is not None and bool(kind.protocols) and not kind.model_less


def start_gateway(request: RunRequest, units: list[RunUnit], run_dir: Path) -> GatewayThread | None:
    """The run's model gateway, unless no unit needs a model."""
    spec = _gateway_spec(request, units, run_dir)
    return spec.start() if spec is not None else None


def _gateway_spec(
    request: RunRequest,
    units: list[RunUnit],
    run_dir: Path,
    experiment: ExperimentDefinition | None = None,
    providers: ProviderSet | None = None,
) -> GatewaySpec | None:
    # aiohttp and the gateway load only when a unit needs a model (agentless runs start faster);
    # judges and a simulated user need it too, whatever the agent.
    needs_model = any(_speaks_to_a_model(u.agent.type) or _judged_by_a_model(u) for u in units)
    backend = resolve_backend(request.backend)
    from coder_eval.agents.registry import AGENTS

    kinds = [k for k in (AGENTS.find(t) for t in sorted({u.agent.type for u in units})) if k is not None]
    return gateway_spec(
        backend,
        needs_model=needs_model,
        cassettes=request.cassettes,
        run_dir=run_dir,
        oracle=request.oracle,
        experiment=experiment,
        kinds=kinds,
        providers=providers,
    )


def _judged_by_a_model(unit: RunUnit) -> bool:
    from coder_eval.models.results import JUDGE_TYPES

    definition = unit.task.definition
    simulated = definition.simulation is not None and definition.simulation.enabled
    return simulated or any(c.type in JUDGE_TYPES and not c.is_disabled for c in definition.success_criteria)


def _load_agents(units: list[RunUnit]) -> None:
    """Import every needed agent implementation now, not inside the first task's event loop turn."""
    from coder_eval.agents.registry import agent_kind

    for kind in sorted({u.agent.type for u in units}):
        agent_kind(kind).load()


def _link(gateway: GatewayThread | None, oracle: bool, backend: str) -> ModelLink | None:
    if gateway is None:
        return None
    from coder_eval.engine.gateway_link import GatewayLink

    return GatewayLink(gateway, oracle=oracle, backend=backend)


def run_pipeline(
    request: RunRequest,
    observer: BatchObserver | None = None,
    on_plan: Callable[[int, Path], None] | None = None,
) -> RunOutcome:
    """Run (or execute) every selected task; records are written as each unit finishes."""
    started = datetime.now(UTC)
    report = load_tasks(request.paths, request.select)
    show_load_warnings(report.warnings)
    plan = plan_units(report.tasks, request.plan_inputs())
    if plan.adaptive is not None and not request.grade:
        raise UsageError("--repeats auto decides from grades, and execute grades nothing; use run (or a number)")
    units = [replace(u, oracle=True) for u in plan.units] if request.oracle else plan.units
    from coder_eval.sandbox.auto import warn_if_unisolated

    warn_if_unisolated({u.task.definition.sandbox.driver for u in units})
    from coder_eval.sandbox.env_allowlist import warn_withheld_credentials

    warn_withheld_credentials({n: None for u in units for n in u.task.definition.sandbox.passthrough()})
    backend = resolve_backend(request.backend)
    routes = RunRoutes.for_units(backend, [*units, *plan.held_back], plan.experiment)
    checks = check_units([*units, *plan.held_back], RunChoices(backend, request.oracle), routes)
    load_errors = [*report.errors, *plan.errors, *checks.errors()]
    refuse_invalid(load_errors)  # every `plan` check, before anything is created or started
    refuse_empty(report, request.select, len(units))
    check_backend_flags(backend, request.cassettes)
    show_warnings(checks)
    skipped = list(report.skipped)
    executor = get_executor(request.executor, request.executor_settings)
    run_dir = _run_dir(request)
    run_dir.mkdir(parents=True, exist_ok=True)
    rounds = None
    if plan.adaptive is not None:
        arms = (plan.experiment.variants[0].variant_id, plan.experiment.variants[1].variant_id)
        rounds = AdaptiveRounds.of(units, plan.adaptive, arms, run_dir)
    check_resumable(run_dir, rounds, resume=request.resume)
    planned = len(units)
    recorded = Recorded(run_dir, resume=request.resume, grade=request.grade, allow_changed=request.allow_changed)
    prior = recorded.prior
    if request.resume:
        clear_leftovers(run_dir)
    if rounds is None:
        units = recorded.settle(units)
    _write_plan(run_dir, planned, len(units), started)
    if on_plan is not None and rounds is None:
        on_plan(len(units), run_dir)
    _load_agents(units)
    from coder_eval.engine.pricing_check import warn_unpriced

    warn_unpriced(units, backend)
    providers = routes.providers if routes is not None else None
    spec = _gateway_spec(request, units, run_dir, plan.experiment, providers)
    gateway = spec.start() if spec is not None and not executor.hosts_gateways else None
    spend = _spend_limit(request, prior)
    if rounds is not None:
        recorded.on_kept = rounds.kept_by(spend)  # a resumed round's recorded units: decided on, and paid
    options = RunOptions(
        run_dir=run_dir,
        grade=request.grade,
        preservation=request.preservation,
        stream_factory=request.stream_factory,
        model_link=_link(gateway, request.oracle, resolve_backend(request.backend)),
        gateway_spec=spec,
        spend=spend,
    )
    stopped: str | None = None
    fresh: HeldResults | None = None
    interrupted = True
    # Tasks, units and modules live for the whole run: frozen, the collector stops re-walking them
    # after every few units (it was a few percent of an agentless run's time).
    gc.freeze()
    try:

        def on_round(scheduled: int, to_run: int) -> None:
            _write_plan(run_dir, scheduled, to_run, started)
            if on_plan is not None:
                on_plan(to_run, run_dir)

        fresh, not_launched = execute(
            units, rounds, executor, options, recorded.settle, request.max_parallel, observer, on_round
        )
        interrupted = False
        if spend is not None and not_launched > 0:
            stopped = spend.reason(not_launched)
            interrupted = True
    except BaseException:
        kill_running_commands()  # pre_run/criteria commands live in worker threads asyncio cannot cancel
        raise
    finally:
        gc.unfreeze()
        if gateway is not None:
            gateway.stop()
        clear_leftovers(run_dir)
        if fresh is None or not fresh:
            results = held_from_run_dir(run_dir)  # what reached disk: the run stopped, or ran nothing new
        else:
            results = fresh
            results.absorb(prior)  # resumed units join the run's (the reports take rows in row order)
        prior.close()
        over_expected: list[dict[str, Any]] = []
        summary = write_run_files(
            run_dir,
            results,
            run_id=run_dir.name,
            skipped=skipped,
            start_time=started,
            end_time=datetime.now(UTC),
            max_parallel=request.max_parallel,
            planned=rounds.scheduled() if rounds is not None else planned,
            interrupted=interrupted,
            interrupt_reason=stopped,
            on_row=lambda row: over_expected.append(row) if over_expected_turns(row) else None,
            units_fixed_design=rounds.fixed_units if rounds is not None else None,
        )
        (run_dir / RUN_PLAN).unlink(missing_ok=True)  # run.json carries units_planned now
        if interrupted and request.junit_xml is not None:
            write_junit(request.junit_xml, summary, results)
        if request.run_dir is None:
            point_latest(Path(DEFAULT_RUNS_DIR), run_dir)
    rollups = _suite_rollups(report.tasks, results, run_dir) if request.grade else []
    verdicts = write_experiment_reports(run_dir, plan.experiment, results, summary.total_duration_seconds)
    if request.junit_xml is not None:
        from coder_eval.suites import suite_gate_entries

        write_junit(request.junit_xml, summary, results, suite_gate_entries(rollups))
    outcome = RunOutcome(run_dir, summary, load_errors, results, over_expected=over_expected)
    outcome.grading = request.grade
    outcome.verdicts = verdicts
    outcome.stopped_reason = stopped
    outcome.adaptive = rounds.record() if rounds is not None else None
    outcome.suite_gates_ok = all(r.passed for r in rollups)
    from coder_eval.suites import suite_gate_entries

    outcome.failed_gates = [f"{name}: {detail}" for name, ok, detail in suite_gate_entries(rollups) if not ok]
    return outcome


def _write_plan(run_dir: Path, planned: int, to_run: int, started: datetime) -> None:
    """The run's plan file, read by the board while the run goes (adaptive runs rewrite it each round)."""
    write_text_atomic(
        run_dir / RUN_PLAN,
        json.dumps({"units_planned": planned, "units_to_run": to_run, "start_time": started.isoformat()}),
    )


def _spend_limit(request: RunRequest, prior: HeldResults) -> SpendLimit | None:
    """The `--max-cost-usd` guard, counting what the resumed run's finished units already spent."""
    if request.max_cost_usd is None:
        return None
    from coder_eval.engine.spend import SpendLimit

    spend = SpendLimit(request.max_cost_usd)
    spend.add_all(prior)
    return spend


def show_load_warnings(warnings: dict[Path, list[LoadWarning]]) -> None:
    """Print what the task files say that loads but is ignored or read in a legacy form, on stderr."""
    import sys

    for path, found in warnings.items():
        for warning in found:
            print(f"warning: {path}: {warning.render()}", file=sys.stderr)


def _suite_rollups(tasks: list[LoadedTask], results: HeldResults, run_dir: Path) -> list[SuiteRollup]:
    """suite.json / suite.md per (variant, dataset suite); their gates join the exit code."""
    if not any(t.suite_id for t in tasks):
        return []
    from coder_eval.engine.report_files import write_suite_rollups
    from coder_eval.suites import build_suite_rollups

    criteria: dict[str, list[BaseCriterion]] = {
        t.suite_id: list(t.definition.success_criteria) for t in tasks if t.suite_id
    }
    rollups = build_suite_rollups(results.ordered(), criteria)
    write_suite_rollups(run_dir, rollups)
    return rollups
