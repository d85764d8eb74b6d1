"""Validate task files without running anything: the library half of `coder-eval plan`."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.engine.preflight import environment_warnings
from coder_eval.errors import TaskConfigError
from coder_eval.loading.discovery import discover_task_files
from coder_eval.loading.loader import LoadedTask, expand_dataset, read_task_file
from coder_eval.loading.static_checks import task_problems, task_warnings
from coder_eval.models.criteria_judges import SystemOneJudgeCriterion
from coder_eval.models.task import TaskDefinition


@dataclass
class FilePlan:
    path: Path
    tasks: list[LoadedTask] = field(default_factory=list)
    error: TaskConfigError | None = None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What will happen that is worth knowing before a run (e.g. which route each judge uses)."""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class PlanReport:
    files: list[FilePlan]
    environment: list[str]

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.files)


def plan_file(path: Path) -> FilePlan:
    out = FilePlan(path)
    try:
        loaded = read_task_file(path)
        task = loaded.definition
        problems = task_problems(task, path.parent.resolve())
        if problems:
            raise TaskConfigError(path, problems)
        out.tasks = expand_dataset(task, loaded.raw, path, warnings=tuple(loaded.warnings))
        out.warnings = [w.render() for w in loaded.warnings] + task_warnings(task)
        out.notes = judge_notes(task)
    except TaskConfigError as exc:
        out.error = exc
    return out


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


def plan(paths: list[str], *, cwd: Path | None = None, backend: str | None = None) -> PlanReport:
    probe = _probe_bubblewrap()
    try:
        files = [plan_file(p) for p in discover_task_files(paths, cwd=cwd)]
    finally:
        probe.join()
    definitions: list[TaskDefinition] = [f.tasks[0].definition for f in files if f.tasks]
    for f in files:
        if f.tasks:
            f.notes.append(network_note(f.tasks[0].definition))
    _check_routes(files, backend)
    return PlanReport(files, environment_warnings(definitions))


def _check_routes(files: list[FilePlan], backend: str | None) -> None:
    """Each task's model route in its notes; a task whose agent has no usable route is refused.

    Refused when the backend is named (`-b`, or API_BACKEND); with none named the default (direct)
    is checked and what it would refuse is a warning, so `plan` alone still validates offline.
    """
    import os

    from coder_eval.engine.gateway_spec import resolve_backend

    named = backend is not None or bool(os.environ.get("API_BACKEND"))
    chosen = resolve_backend(backend)
    speaking = [f for f in files if f.tasks and _speaks(f.tasks[0].definition)]
    if not speaking:
        return
    from coder_eval.agents.registry import AGENTS
    from coder_eval.engine.provider_config import provider_environment, run_providers
    from coder_eval.engine.route_check import route_lines

    providers = run_providers(chosen)
    kinds = [k for k in (AGENTS.find(f.tasks[0].definition.agent_type or "claude-code") for f in speaking) if k]
    env = provider_environment(providers, kinds)
    for f in speaking:
        lines, problems = route_lines(f.tasks[0].definition, chosen, providers, env)
        f.notes += [f"under -b {chosen}, {line}" for line in lines]
        if problems and named:
            f.error = TaskConfigError(f.path, problems)
        elif problems:
            f.warnings += [f"{p.render()}; `run` refuses it, `plan -b {chosen}` too" for p in problems]


def _speaks(task: TaskDefinition) -> bool:
    from coder_eval.agents.registry import AGENTS

    kind = AGENTS.find(task.agent_type or "claude-code")
    return kind is not None and bool(kind.protocols) and not kind.model_less


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
