"""Validate task files without running anything: the library half of `coder-eval plan`."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.common.suggest import did_you_mean
from coder_eval.engine.experiment_plan import ExperimentPlan, PlanInputs, plan_units
from coder_eval.engine.preflight import environment_warnings
from coder_eval.engine.route_check import RunRoutes
from coder_eval.engine.unit_checks import RunChoices, check_units
from coder_eval.engine.units import RunUnit
from coder_eval.errors import Problem, TaskConfigError
from coder_eval.loading.discovery import discover_task_files
from coder_eval.loading.loader import LoadedTask, expand_dataset, read_task_file
from coder_eval.loading.static_checks import task_problems, task_warnings
from coder_eval.models.criteria_judges import SystemOneJudgeCriterion
from coder_eval.models.experiment import ExperimentDefinition
from coder_eval.models.sandbox import PythonEnv
from coder_eval.models.task import TaskDefinition


@dataclass
class FilePlan:
    path: Path
    tasks: list[LoadedTask] = field(default_factory=list)
    error: TaskConfigError | None = None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What will happen that is worth knowing before a run (e.g. which route each judge uses)."""
    problems: list[Problem] = field(default_factory=list)
    """What resolution and the unit checks found: the file loads, but `run` would refuse it."""

    @property
    def ok(self) -> bool:
        return self.error is None and not self.problems


@dataclass
class PlanReport:
    files: list[FilePlan]
    environment: list[str]
    units: ExperimentPlan | None = None
    """The units `run` would start for the same inputs (None when no file loaded)."""
    other_errors: list[TaskConfigError] = field(default_factory=list)
    """Resolution errors that belong to no listed task file."""
    routes: RunRoutes | None = None
    """Where the units' model calls go under the chosen backend (None when no file loaded)."""

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.files) and not self.other_errors


def plan_file(path: Path, backend: str | None = None) -> FilePlan:
    out = FilePlan(path)
    try:
        loaded = read_task_file(path)
        task = loaded.definition
        problems = task_problems(task, path.parent.resolve())
        if problems:
            raise TaskConfigError(path, problems)
        out.tasks = expand_dataset(task, loaded.raw, path, warnings=tuple(loaded.warnings))
        out.warnings = [w.render() for w in loaded.warnings] + task_warnings(task)
        out.notes = [*environment_notes(task), *judge_notes(task, backend)]
    except TaskConfigError as exc:
        out.error = exc
    return out


def environment_notes(task: TaskDefinition) -> list[str]:
    """What Python (and npm) environment each unit of the task will get."""
    sandbox = task.sandbox
    notes = [_python_note(sandbox.python, sandbox.driver)]
    if sandbox.node is not None:
        packages = ", ".join(sandbox.node.specifiers) or "no packages"
        notes.append(
            f"sandbox.node: npm installs {packages} into each unit's workspace; "
            "`npm install -g` goes to the unit's own prefix in its HOME"
        )
    return notes


def _python_note(spec: PythonEnv | None, driver: str) -> str:
    import sys

    from coder_eval.sandbox.drivers import BUILTIN_DRIVERS, DRIVERS
    from coder_eval.sandbox.environments import base_interpreter
    from coder_eval.sandbox.task_envs import editable

    if spec is None:
        return (
            "sandbox.python: null: units run the host's interpreter (python on their PATH), "
            "read-only under bubblewrap and docker"
        )
    if spec.version:
        interpreter = f"Python {spec.version}, as uv finds or downloads it"
    elif driver == "docker":
        interpreter = "the image's /usr/bin/python3"
    else:
        interpreter = f"Python {sys.version.split()[0]} at {base_interpreter()}"
    plugin = None if driver in BUILTIN_DRIVERS else DRIVERS.find(driver)
    if editable(spec.env_packages):
        how = "built for each unit (editable requirements point into its own workspace)"
    elif plugin is not None and not getattr(plugin, "shows_shared_dirs", False):
        how = f"built for each unit (the {driver} driver cannot show units a shared one)"
    else:
        how = "cloned from one built once per task and shown read-only"
    packages = ", ".join(["pip", *spec.env_packages])
    return f"sandbox.python: each unit gets its own .venv ({packages}) on {interpreter}, {how}"


JUDGE_TYPES = frozenset({"llm_judge", "agent_judge", "system_one_judge", "uipath_eval"})


def judge_notes(task: TaskDefinition, backend: str | None = None) -> list[str]:
    """One line per judge criterion: where its model calls will go under this backend."""
    import os

    from coder_eval.criteria.registry import CHECKERS
    from coder_eval.judges.routing import describe_judge_route

    chosen = (backend or os.environ.get("API_BACKEND") or "direct").lower()
    route = task.checker_context.api_route if task.checker_context else None
    notes = []
    for i, crit in enumerate(task.success_criteria):
        if crit.is_disabled:
            notes.append(f"success_criteria[{i}] {crit.type}: disabled (enabled: false); scores 1.0, no model call")
        elif crit.type in JUDGE_TYPES and crit.type not in CHECKERS:  # a plugin's spec without its checker
            notes.append(f"success_criteria[{i}] {crit.type}: this installation cannot grade it (not evaluated)")
        elif isinstance(crit, SystemOneJudgeCriterion) and crit.base_url and chosen != "script":
            key = crit.api_key_env
            how = "relayed by the run's gateway" if chosen != "bedrock" else "called directly (no gateway)"
            sent = f"key from ${key}" if key else "no key sent"
            notes.append(
                f"success_criteria[{i}] {crit.type}: under -b {chosen}, calls its own endpoint {crit.base_url} "
                f"({how}; {sent})"
            )
        elif crit.type in JUDGE_TYPES:
            where = describe_judge_route(chosen, route, crit.type)
            notes.append(f"success_criteria[{i}] {crit.type}: under -b {chosen}, {where}")
    sim = task.simulation
    if sim is not None and sim.enabled:
        notes.append(f"simulation: the simulated user ({sim.model}) gets its own route, like the agent's")
    return notes


def plan(
    paths: list[str],
    *,
    cwd: Path | None = None,
    inputs: PlanInputs | None = None,
    choices: RunChoices | None = None,
) -> PlanReport:
    """Load every file, resolve every task as `run` would for these inputs, and check the units.

    Each file's verdict counts everything `run` refuses for it: load errors, resolution errors
    (under the experiment, -D, -T, --driver) and the unit checks for the chosen backend; each file's
    notes say the network policy its units get and the model route they take."""
    probe = _probe_bubblewrap()
    chosen = choices or RunChoices()
    try:
        files = [plan_file(p, chosen.backend) for p in discover_task_files(paths, cwd=cwd)]
    finally:
        probe.join()
    definitions: list[TaskDefinition] = [f.tasks[0].definition for f in files if f.tasks]
    for f in files:
        if f.tasks:
            f.notes.append(network_note(f.tasks[0].definition))
    report = PlanReport(files, environment_warnings(definitions))
    tasks = [t for f in files for t in f.tasks]
    if tasks:
        report.units = plan_units(tasks, inputs or PlanInputs(), cwd=cwd)
        units = [*report.units.units, *report.units.held_back]
        report.environment += quarantine_warnings(report.units.experiment, {u.task_id for u in units})
        report.routes = RunRoutes.for_units(chosen.backend, units, report.units.experiment)
        checks = check_units(units, chosen, report.routes)
        _attach(report, [*report.units.errors, *checks.errors()], checks.warnings)
        if report.routes is not None:
            _route_notes(report, report.routes, units)
    return report


def quarantine_warnings(experiment: ExperimentDefinition, task_ids: set[str]) -> list[str]:
    """A quarantined name that no planned unit has: a typo, or a task this selection leaves out."""
    if experiment.quarantine is None:
        return []
    out = []
    for name in experiment.quarantine.tasks:
        if name not in task_ids:
            hint = did_you_mean(name, sorted(task_ids))
            out.append(
                f"experiment {experiment.experiment_id}: quarantine names task {name!r}, which none of these tasks "
                f"is{f' ({hint})' if hint else ''}; the quarantine will not apply to it"
            )
    return out


def _route_notes(report: PlanReport, routes: RunRoutes, units: list[RunUnit]) -> None:
    """Each file's notes gain the model route of its units (one line per distinct route)."""
    by_path = {f.path.resolve(): f for f in report.files}
    variants = {u.variant_id for u in units}
    for unit in units:
        target = by_path.get(unit.task.source_file.resolve())
        if target is None or unit.replicate_index:
            continue
        lines, _ = routes.check(unit.agent.type, unit.agent.model)
        prefix = f"variant {unit.variant_id}: " if len(variants) > 1 else ""
        for line in lines:
            note = f"{prefix}under -b {routes.backend}, {line}"
            if note not in target.notes:
                target.notes.append(note)


def _attach(report: PlanReport, errors: list[TaskConfigError], warnings: dict[Path, list[str]]) -> None:
    """Each error and warning under the file it belongs to."""
    by_path = {f.path.resolve(): f for f in report.files}
    for error in errors:
        target = by_path.get(Path(error.file).resolve()) if error.file is not None else None
        if target is None:
            report.other_errors.append(error)
            continue
        for problem in error.problems:
            if problem not in target.problems:
                target.problems.append(problem)
    for path, lines in warnings.items():
        target = by_path.get(path.resolve())
        if target is not None:
            target.warnings.extend(w for w in lines if w not in target.warnings)


def network_note(task: TaskDefinition) -> str:
    """`sandbox: <driver>, network ...`: the policy a unit of this task will have here."""
    from coder_eval.sandbox.egress_policy import describe

    driver = unit_driver(task)
    return f"sandbox {driver}: {describe(task.sandbox, driver)}"


def unit_driver(task: TaskDefinition) -> str:
    """The driver a unit of this task gets on this machine (`auto` resolved, as the run resolves it)."""
    from coder_eval.agents.registry import AGENTS
    from coder_eval.engine.control_checks import cut_off_from_harness
    from coder_eval.sandbox.auto import resolve_auto

    driver = task.sandbox.driver
    if driver != "auto":
        return driver
    kind = AGENTS.find(task.agent_type or "claude-code")
    if kind is not None and kind.loopback_harness and cut_off_from_harness(task, "auto"):
        return "tempdir"
    return resolve_auto()


def _probe_bubblewrap() -> threading.Thread:
    """Find out whether bubblewrap works here while the task files are read.

    The default driver, `auto`, needs the answer for its warning, and the probe is a short-lived
    bwrap process (about 10 ms of waiting); its result is cached, so `environment_warnings` reads
    it. The module is imported here, not in the thread, so no import runs on two threads at once.
    A probe that fails unexpectedly is not cached: the later call repeats it and reports it.
    """
    from coder_eval.sandbox.bwrap import bwrap_works

    def probe() -> None:
        with contextlib.suppress(Exception):
            bwrap_works()

    thread = threading.Thread(target=probe, name="bubblewrap-probe", daemon=True)
    thread.start()
    return thread
