"""Settings of the `ray` executor: where the cluster is and what each unit asks of it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from coder_eval.errors import UsageError

RAY_EXTRA_HINT = "install it with: pip install 'coder-eval[ray]'"


def ray_missing() -> str | None:
    """Why the `ray` executor cannot be used here, or None when Ray is importable."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        return f"the ray executor needs Ray, which is not installed; {RAY_EXTRA_HINT}"
    return None


@dataclass(frozen=True)
class UnitResources:
    """What one unit asks of the cluster; `by_agent` adds custom resources for units of one agent kind."""

    cpus: float = 1.0
    memory_mb: int | None = None
    custom: dict[str, float] = field(default_factory=dict)
    by_agent: dict[str, dict[str, float]] = field(default_factory=dict)

    def for_agent(self, kind: str) -> dict[str, float]:
        return {**self.custom, **self.by_agent.get(kind, {})}


@dataclass(frozen=True)
class RaySettings:
    """`--ray-address` (else RAY_ADDRESS, else a private local Ray), per-unit resources, shared run dir."""

    address: str | None = None
    resources: UnitResources = field(default_factory=UnitResources)
    shared_run_dir: bool = False
    """Workers write records straight into the run directory (it must be mounted at the same path on every node)."""
    cancel_grace: float = 10.0
    """Seconds a cancelled unit gets to stop its agent and commands before its worker is killed."""

    @property
    def resolved_address(self) -> str | None:
        return self.address or os.environ.get("RAY_ADDRESS") or None


def parse_resource(text: str) -> tuple[str | None, str, float]:
    """`NAME=AMOUNT` or `AGENT:NAME=AMOUNT` (only units of that agent kind ask for it)."""
    spec, sep, amount = text.partition("=")
    agent, colon, name = spec.partition(":")
    if not colon:
        agent, name = "", spec
    try:
        value = float(amount)
    except ValueError:
        value = -1.0
    if not sep or not name.strip() or value <= 0:
        raise UsageError(
            f"--ray-resource {text!r}: expected NAME=AMOUNT or AGENT:NAME=AMOUNT with a positive amount "
            "(for example claude_code=1 or claude-code:claude_code=1)"
        )
    return (agent.strip() or None), name.strip(), value


def ray_settings(
    address: str | None, cpus: float, memory_mb: int | None, resources: list[str], shared_run_dir: bool
) -> RaySettings:
    custom: dict[str, float] = {}
    by_agent: dict[str, dict[str, float]] = {}
    for text in resources:
        agent, name, value = parse_resource(text)
        (by_agent.setdefault(agent, {}) if agent else custom)[name] = value
    return RaySettings(
        address=address,
        resources=UnitResources(cpus=cpus, memory_mb=memory_mb, custom=custom, by_agent=by_agent),
        shared_run_dir=shared_run_dir,
    )
