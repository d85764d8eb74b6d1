"""What the planned units need from this machine and the command line: one check list for `plan` and `run`.

Loading and resolution catch a wrong task file. These checks catch what only the resolved units
and the chosen flags reveal: a variant's plugin path whose `$VAR` is unset or that does not
exist, a variant's template source outside the task tree, a scripted-model file that does not
validate (under `-b script`), a model route the chosen backend cannot serve (no credential, base
URL, region, project or api-version for the provider a unit's calls resolve to; `route_check.py`;
for its judges and simulated user, `judge_check.py`),
an agent binary that is not installed, a sandbox driver this machine cannot provide. `run` refuses before it starts
anything when any of them fails, with the messages `plan` prints for the same inputs and flags.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from coder_eval.agents.registry import agent_kind
from coder_eval.engine.route_check import RunRoutes
from coder_eval.engine.tool_permissions import refusal_warnings
from coder_eval.engine.units import RunUnit
from coder_eval.errors import Problem, TaskConfigError
from coder_eval.loading.static_checks import env_refs, task_problems
from coder_eval.models.registry import UnknownKindError


@dataclass(frozen=True)
class RunChoices:
    """The command-line choices the checks depend on (besides what resolution already applied)."""

    backend: str = "direct"
    oracle: bool = False


@dataclass
class UnitChecks:
    """Problems (the run cannot go ahead) and warnings, per task file."""

    problems: dict[Path, list[Problem]] = field(default_factory=dict)
    warnings: dict[Path, list[str]] = field(default_factory=dict)

    def errors(self) -> list[TaskConfigError]:
        return [TaskConfigError(path, problems) for path, problems in self.problems.items()]

    def add_problem(self, path: Path, problem: Problem) -> None:
        bucket = self.problems.setdefault(path, [])
        if problem not in bucket:
            bucket.append(problem)

    def add_warning(self, path: Path, warning: str) -> None:
        bucket = self.warnings.setdefault(path, [])
        if warning not in bucket:
            bucket.append(warning)


def check_units(units: Iterable[RunUnit], choices: RunChoices, routes: RunRoutes | None = None) -> UnitChecks:
    """Every problem and warning of the planned units (each check runs once per distinct input).

    `routes` holds the run's providers (the experiment's `providers:` included); without it they
    are read here, from the user's providers.yaml alone."""
    units = list(units)
    routes = routes or RunRoutes.for_units(choices.backend, units)
    out = UnitChecks()
    seen: set[tuple[object, ...]] = set()
    for unit in units:
        if unit.replicate_index:
            continue  # replicates of a unit share its inputs
        path = unit.task.source_file
        variant = f"variant {unit.variant_id}: " if unit.variant_id != "default" else ""

        def problem(message: str, where: str = "", fix: str = "", *, _p: Path = path, _v: str = variant) -> None:
            out.add_problem(_p, Problem(_v + message, where, fix))

        # rows share the variant's plugins, and its template sources unless `${row.x}` made them differ
        sandbox = unit.task.definition.sandbox
        resolved_key = (path, unit.variant_id, repr(sandbox.template_sources), repr(sandbox.docker))
        if resolved_key not in seen:
            seen.add(resolved_key)
            _resolved_problems(unit, problem)
            for note in _rehearsal(unit, problem):
                out.add_warning(path, variant + note)
            for p in routes.judge_problems(unit.task.definition) if routes is not None else []:
                problem(p.message, p.field_path, p.hint)
            for warning in refusal_warnings(unit.task.definition.success_criteria, unit.agent):
                out.add_warning(path, variant + warning)
        machine_key = (unit.agent.type, unit.agent.model, unit.task.definition.sandbox.driver, choices)
        if machine_key not in seen:
            seen.add(machine_key)
            _machine_problems(unit, routes, problem)
        if choices.backend == "script" and _speaks_to_a_model(unit.agent.type):
            script_key = (path, unit.task.row_id, unit.variant_id if choices.oracle else None)
            if script_key not in seen:
                seen.add(script_key)
                _script_problems(unit, choices.oracle, out, path)
    return out


Report = Callable[..., None]


def _resolved_problems(unit: RunUnit, problem: Report) -> None:
    """The loaded-file checks again, on the task as this variant resolved it (its template sources,
    its plugins): a variant can bring a path the task file never had."""
    definition = unit.task.definition
    for p in task_problems(definition, unit.task.task_dir):
        problem(p.message, p.field_path, p.hint)
    for i, plugin in enumerate(unit.agent.plugins):
        where = f"agent.plugins[{i}].path"
        unset = [name for name in env_refs(plugin.path) if name not in os.environ]
        if unset:
            problem(
                f"plugin path {plugin.path!r} uses ${unset[0]}, which is not set, so the plugin would be left out",
                where,
                f"export {unset[0]}=<the plugin root> before the run",
            )
        elif not Path(plugin.path).expanduser().is_dir():
            problem(f"plugin path {plugin.path!r} is not a directory", where, "point it at the plugin root")


def _rehearsal(unit: RunUnit, problem: Report) -> list[str]:
    """A rehearsed docker task's replay plan: its refusals as problems, what it skips or stands in as notes."""
    sandbox = unit.task.definition.sandbox
    if sandbox.rehearsal is None or not sandbox.rehearsal.enabled or sandbox.docker is None:
        return []
    from coder_eval.sandbox.dockerfile_plan import plan_replay

    plan = plan_replay(sandbox.docker, sandbox.rehearsal, unit.task.task_dir)
    for p in plan.problems:
        problem(f"rehearsal: {plan.dockerfile}, line {p.line}: {p.message}", "sandbox.docker", p.fix)
    return [f"rehearsal: {note}" for note in plan.notes]


def _speaks_to_a_model(kind_name: str) -> bool:
    try:
        kind = agent_kind(kind_name)
    except (LookupError, UnknownKindError):
        return False
    return bool(kind.protocols) and not kind.model_less


def _machine_problems(unit: RunUnit, routes: RunRoutes | None, problem: Report) -> None:
    """The agent's binary and model route, the sandbox driver: what this machine must provide."""
    try:
        kind = agent_kind(unit.agent.type)
    except (LookupError, UnknownKindError) as exc:
        problem(str(exc), "agent.type")
        return
    if not kind.has_implementation:
        problem(f"agent type {kind.name!r} validates, but this version of Coder Eval cannot run it", "agent.type")
    elif kind.binary is not None and kind.binary.locate() is None:
        fix = f"install it: {kind.binary.install}" if kind.binary.install else "install it or put it on PATH"
        problem(f"{kind.binary.name!r} (agent type {kind.name!r}) is not installed here", "agent.type", fix)
    if routes is not None and _speaks_to_a_model(kind.name):
        for p in routes.check(kind.name, unit.agent.model)[1]:
            problem(p.message, p.field_path, p.hint)
    driver = unit.task.definition.sandbox.driver
    why = _driver_missing(driver)
    if why is not None:
        fix = "install it, or choose another driver with --driver"
        if driver == "docker":
            fix += ", or rehearse the task without a daemon (--rehearse)"
        problem(why, "sandbox.driver", fix)


@cache
def _driver_missing(driver: str) -> str | None:
    """Why this machine cannot provide the driver, or None (each driver is probed once)."""
    from coder_eval.sandbox.drivers import DRIVERS

    if driver not in DRIVERS:
        return f"sandbox driver {driver!r} is not available here (available: {', '.join(DRIVERS.names())})"
    if driver == "docker":
        from coder_eval.sandbox.docker import docker_available

        if not docker_available():
            return "sandbox driver docker: docker is not installed or its daemon is not running"
    if driver == "bubblewrap":
        from coder_eval.sandbox.bwrap import bwrap_works

        if not bwrap_works():
            return "sandbox driver bubblewrap: bwrap is not installed or cannot create namespaces here"
    return None


def _script_problems(unit: RunUnit, oracle: bool, out: UnitChecks, path: Path) -> None:
    """Under -b script, the unit's script (or oracle) must load and validate now, not at its turn."""
    from coder_eval.gateway.script_file import script_for

    try:
        script_for(unit.task, oracle=oracle)
    except TaskConfigError as exc:
        for p in exc.problems:
            where = str(exc.file) if exc.file and Path(exc.file) != path else ""
            message = f"{where}: {p.message}" if where else p.message
            out.add_problem(path, Problem("script: " + message, p.field_path, p.hint))


def check_backend_flags(backend: str, cassettes: Path | None) -> None:
    """The backend's own flags: replay needs a cassettes directory (UsageError, exit 2)."""
    if backend == "replay" and (cassettes is None or not cassettes.is_dir()):
        from coder_eval.errors import UsageError

        raise UsageError("--backend replay needs --cassettes DIR (a recorded run's cassettes directory)")


def show_warnings(checks: UnitChecks) -> None:
    """The checks' warnings on stderr, once each, before the run starts (plan lists them per file)."""
    import sys

    for path, warnings in checks.warnings.items():
        for warning in warnings:
            print(f"warning: {path}: {warning}", file=sys.stderr)
