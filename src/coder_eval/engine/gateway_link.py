"""ModelLink on the model gateway: one route per unit, its env for the agent, its records after.

Every backend goes through the gateway, `-b bedrock` and `-b litellm` included (the gateway relays
to those providers in direct mode), so no agent ever holds a provider key."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder_eval.agents.kind import RouteAddress
from coder_eval.engine.agent_phase import AgentPhase, total_usage
from coder_eval.engine.task_log import TaskLog
from coder_eval.engine.units import RunUnit
from coder_eval.gateway.budget import Budget
from coder_eval.gateway.protocol_names import PROTOCOLS
from coder_eval.gateway.providers import RouteHints
from coder_eval.gateway.server import GatewayThread, Route
from coder_eval.gateway.source import ReplySource
from coder_eval.models.telemetry import ProviderCallCost, TokenUsage
from coder_eval.models.tools import ToolVocabulary


def real_api_keys(env: dict[str, str] | None = None) -> dict[str, str]:
    """The provider keys the gateway forwards upstream in direct/record mode (never given to agents)."""
    source = os.environ if env is None else env
    keys = {name: source.get(cls.api_key_var) for name, cls in PROTOCOLS.entries()}
    return {name: key for name, key in keys.items() if key}


def budget_for(unit: RunUnit) -> Budget | None:
    return Budget.of(unit.task.definition.run_limits)


def route_key(unit: RunUnit) -> str:
    return f"{unit.variant_id}/{unit.task_id}/{unit.replicate_index:02d}"


@dataclass
class _OpenRoute:
    thread: GatewayThread
    route: Route
    env: dict[str, str] = field(default_factory=dict)
    backend: str = ""

    @property
    def address(self) -> RouteAddress:
        return RouteAddress(self.route.base_url, self.route.token)

    def finish(self, phase: AgentPhase, env_info: dict[str, Any], log: TaskLog) -> None:
        self.thread.close_route(self.route)
        fold_route_records(RouteRecords.of(self.route), phase, env_info, log)
        providers = sorted({c.provider for c in self.route.calls if c.provider})
        if providers:
            env_info["gateway_providers"] = providers
        if self.backend in ("bedrock", "litellm"):
            env_info["api_backend"] = f"{self.backend} (relayed by the gateway; the agent holds no provider key)"


@dataclass
class RouteRecords:
    """What a closed route saw: its call records, their totals and the budget verdict (picklable)."""

    calls: list[ProviderCallCost]
    usage: TokenUsage
    budget_exceeded: str | None

    @classmethod
    def of(cls, route: Route) -> RouteRecords:
        return cls(list(route.calls), route.usage, route.budget_exceeded)


def fold_route_records(records: RouteRecords, phase: AgentPhase, env_info: dict[str, Any], log: TaskLog) -> None:
    """Put the gateway's records, totals and budget verdict into the unit's turns and environment info."""
    calls = records.calls
    agent = total_usage(phase.turns)
    gateway = records.usage
    if phase.turns:
        # The gateway saw every call, so its bill is the unit's cost (the agent's own figure
        # would price tokens it may not have reported, at rates it guessed).
        for i, turn in enumerate(phase.turns):
            usage = turn.token_usage.model_copy(update={"total_cost_usd": 0.0})
            phase.turns[i] = turn.model_copy(update={"token_usage": usage})
        last = phase.turns[-1]
        billed = last.token_usage.model_copy(update={"total_cost_usd": gateway.total_cost_usd})
        phase.turns[-1] = last.model_copy(
            update={"provider_call_costs": [*last.provider_call_costs, *calls], "token_usage": billed}
        )
    env_info["gateway_calls"] = len(calls)
    env_info["gateway_usage"] = gateway.model_dump(mode="json")
    if gateway.total_tokens != agent.total_tokens:
        env_info["token_divergence"] = {"gateway_total": gateway.total_tokens, "agent_total": agent.total_tokens}
        log.add(f"token totals differ: gateway {gateway.total_tokens}, agent {agent.total_tokens}")
    if records.budget_exceeded is not None:
        phase.outcome = "cost_budget" if records.budget_exceeded == "usd" else "token_budget"
        phase.error = f"the gateway refused a call: {records.budget_exceeded} budget spent"
        log.add(phase.error)


class GatewayLink:
    """Opens a gateway route per unit; in script mode the route answers from the task's script.

    `backend` is the run's (`bedrock` and `litellm` are providers the gateway relays to in direct
    mode); each route carries the agent kind's documented provider variables (`route_hints`).
    """

    def __init__(self, thread: GatewayThread, *, oracle: bool = False, backend: str | None = None) -> None:
        self.thread = thread
        self.oracle = oracle
        self.backend = backend or thread.gateway.mode

    def open(self, unit: RunUnit, workspace: Path, *, vocabulary: ToolVocabulary | None = None) -> _OpenRoute:
        """A route for `unit`; a scripted one maps steps onto tools by `vocabulary` (the agent kind's)."""
        source: ReplySource | None = None
        if self.thread.gateway.mode == "script":
            from coder_eval.gateway.script import ScriptedModel
            from coder_eval.gateway.script_file import script_for

            script = script_for(unit.task, oracle=self.oracle).for_replicate(unit.replicate_index)
            source = ScriptedModel(script, cwd=str(workspace), vocabulary=vocabulary)
        route = self.thread.open_route(
            route_key(unit),
            source=source,
            budget=budget_for(unit),
            model_hint=unit.agent.model,
            workdir=str(workspace),
            hints=_hints(unit.agent.type),
        )
        return _OpenRoute(self.thread, route, backend=self.backend)


def _hints(kind_name: str) -> RouteHints | None:
    from coder_eval.agents.registry import AGENTS
    from coder_eval.engine.provider_config import route_hints

    kind = AGENTS.find(kind_name)
    return route_hints(kind) if kind is not None else None
