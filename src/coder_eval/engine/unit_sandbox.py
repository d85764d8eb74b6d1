"""The sandbox a unit gets: its settings, the host tools it must see, the limits that hold for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coder_eval.agents.registry import agent_kind
from coder_eval.engine.control_checks import cut_off_from_harness
from coder_eval.engine.task_log import TaskLog
from coder_eval.engine.units import RunUnit
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.deadline import limits_in_force
from coder_eval.sandbox.sandbox import Sandbox


def unit_tools(unit: RunUnit, run_dir: Path) -> tuple[str, ...]:
    """What the agent needs to see read-only in sandboxes that show the host selectively: its CLI, its plugins.

    A CLI's directory that holds the run itself (a CLI dropped next to the run directory) is not
    shown whole: its own permissions would then stand between the unit and its workspace, and the
    rest of it is none of the unit's business. The CLI file alone is shown instead.
    """
    paths = [p.path for p in unit.agent.plugins]
    cli = getattr(unit.agent, "cli_path", None)
    try:
        found = agent_kind(unit.agent.type).binary
        cli = cli or (found.locate() if found is not None else None)
    except LookupError:
        pass
    if cli:
        runs = run_dir.resolve()
        for path in (Path(cli).absolute(), Path(cli).resolve()):
            root = install_root(path)
            paths.append(str(path if runs.is_relative_to(root.resolve()) else root))
    return tuple(dict.fromkeys(str(Path(p).absolute()) for p in paths))


def install_root(cli: Path) -> Path:
    """The directory holding a CLI's installation: its `bin/`'s parent for a dedicated prefix, else its own."""
    parent = cli.parent
    shared = {Path.home(), Path.home() / ".local", Path("/usr"), Path("/usr/local"), Path("/")}
    if parent.name == "bin" and parent.parent not in shared:
        return parent.parent
    return parent


def unit_sandbox_config(unit: RunUnit, log: TaskLog) -> SandboxConfig:
    """The unit's sandbox settings; `auto` means tempdir for an agent whose harness needs the host's loopback."""
    definition = unit.task.definition
    try:
        kind = agent_kind(unit.agent.type)
    except LookupError:
        return definition.sandbox
    if kind.loopback_harness and definition.sandbox.driver == "auto" and cut_off_from_harness(definition, "auto"):
        log.add(
            f"sandbox driver auto runs {kind.name} under tempdir (not a security boundary): its harness is "
            "reached over a loopback port that a network-isolated namespace would cut off"
        )
        return definition.sandbox.model_copy(update={"driver": "tempdir"})
    return definition.sandbox


def note_limits(sandbox: Sandbox, env_info: dict[str, Any], log: TaskLog) -> None:
    """Which resource limits hold for this unit, in its record and log; set ones that do not, said so."""
    in_force = limits_in_force(sandbox.live)
    env_info["sandbox_limits"] = in_force
    if in_force:
        log.add("limits: " + ", ".join(f"{k} {v}" for k, v in in_force.items()))
    ignored = [n for n in sandbox.config.limits.set_by_task() if n not in in_force]
    if ignored:
        log.add(f"not enforced by the {sandbox.config.driver} driver: {', '.join(ignored)} (only the deadline binds)")


def note_python(sandbox: Sandbox, log: TaskLog) -> None:
    """Which Python the unit runs, in its log (the record has `environment_info.python_env`)."""
    info = sandbox.python.info
    if info.get("kind") != "venv":
        log.add("python: the host's interpreter (sandbox.python is null)")
        return
    how = "cloned from the task's shared environment" if info.get("cloned") else "built for this unit"
    packages = ", ".join(info.get("packages") or []) or "none"
    log.add(f"python: own environment {info.get('venv')} ({how}; Python {info.get('python_version', '?')}, {packages})")


ISOLATING_DRIVERS = frozenset({"bubblewrap", "docker"})
"""Drivers under which a unit's processes cannot reach the harness's private files (the staged reference)."""


def keep_services(sandbox: Sandbox, log: TaskLog) -> bool:
    """End the agent's processes before grading, or keep them (`sandbox.keep_services`); True when kept."""
    if sandbox.config.keep_services:
        from coder_eval.sandbox.auto import resolve_auto

        driver = sandbox.driver.name if sandbox.driver.name != "auto" else resolve_auto()
        if driver in ISOLATING_DRIVERS:
            log.add("keep_services: the processes left running stay alive into grading")
            return True
        log.add(
            f"keep_services is honoured under bubblewrap and docker only; under {driver} the processes left "
            "running were ended before grading (the staged reference would be within their reach)"
        )
    sandbox.kill_processes()
    return False
