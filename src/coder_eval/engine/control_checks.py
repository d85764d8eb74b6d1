"""Resolution-time rules for early stop and dialog mode, checked per (task, variant) before anything runs."""

from __future__ import annotations

from coder_eval.agents.registry import agent_kind
from coder_eval.engine.early_stop import armed_criteria
from coder_eval.models.task import TaskDefinition


def control_problem(definition: TaskDefinition, agent_type: str) -> tuple[str, str, str] | None:
    """(message, where, fix) when the resolved task cannot run as configured, else None."""
    return _early_stop_problem(definition, agent_type) or _network_problem(definition, agent_type)


def cut_off_from_harness(definition: TaskDefinition, driver: str) -> bool:
    """True when `driver` would put the agent's harness in a network namespace of its own."""
    if driver == "docker":
        return True
    return driver in ("bubblewrap", "auto") and definition.sandbox.network != "host"


def _network_problem(definition: TaskDefinition, agent_type: str) -> tuple[str, str, str] | None:
    try:
        kind = agent_kind(agent_type)
    except LookupError:
        return None
    driver = definition.sandbox.driver
    if not kind.loopback_harness or driver == "auto" or not cut_off_from_harness(definition, driver):
        return None
    return (
        f"agent type {agent_type!r} talks to its harness over a loopback port, which the {driver} driver cuts off here",
        "sandbox.driver",
        "use driver: auto or tempdir, or bubblewrap with sandbox.network: host",
    )


def _early_stop_problem(definition: TaskDefinition, agent_type: str) -> tuple[str, str, str] | None:
    armed = armed_criteria(definition.success_criteria, definition.run_limits)
    if not armed:
        return None
    simulated = definition.simulation is not None and definition.simulation.enabled
    if simulated:
        return (
            "stop_early blocks only work in single-shot runs, and this task enables simulation",
            "success_criteria[].stop_early",
            "use simulation.stop_on_criteria_pass instead, or disarm with run_limits.stop_early: false",
        )
    try:
        kind = agent_kind(agent_type)
    except LookupError:
        return None
    if not kind.cooperative_stop:
        return (
            f"agent type {agent_type!r} cannot stop cooperatively, so its runs cannot stop early",
            "success_criteria[].stop_early",
            "use an agent that supports early stop (e.g. claude-code), or set run_limits.stop_early: false",
        )
    return None


def trial_count(definition: TaskDefinition, repeats: int) -> int:
    """Units per (task, variant): simulation.n_trials when a dialog is enabled (it wins over repeats)."""
    simulation = definition.simulation
    if simulation is not None and simulation.enabled:
        return simulation.n_trials
    return repeats
