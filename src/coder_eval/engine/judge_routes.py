"""Judge and simulator routes on the run's gateway: opening them, and their scripted answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coder_eval.agents.vocabularies import CLAUDE_CODE_TOOLS
from coder_eval.criteria.agent_judge import VERDICT_INSTRUCTION
from coder_eval.engine.gateway_link import GatewayLink, route_key
from coder_eval.engine.judge_upstream import DEFAULT_TIMEOUT, TransportSource
from coder_eval.engine.units import RunUnit
from coder_eval.errors import CoderEvalError
from coder_eval.gateway.budget import Budget
from coder_eval.gateway.routes import Route
from coder_eval.gateway.script_judges import ScriptedJudgeAgent, ScriptedSimulator, ScriptedVerdict
from coder_eval.gateway.script_model import Script
from coder_eval.gateway.server import GatewayThread
from coder_eval.gateway.source import ReplySource
from coder_eval.judges.services import JudgeServices, RouteAddress
from coder_eval.judges.transport import JudgeUnavailableError, Transport
from coder_eval.models.criteria_base import BaseCriterion


@dataclass
class _GatewayRoute:
    thread: GatewayThread
    route: Route

    @property
    def address(self) -> RouteAddress:
        return RouteAddress(self.route.base_url, self.route.token)

    def close(self) -> tuple[int, int, float | None]:
        self.thread.close_route(self.route)
        usage = self.route.usage
        if not self.route.calls:
            return 0, 0, 0.0
        return usage.input_tokens, usage.output_tokens, usage.total_cost_usd


class GatewayRoutes:
    """Opens a unit's judge/simulator routes on the run's gateway thread."""

    def __init__(self, thread: GatewayThread, unit: RunUnit, budget: Budget | None = None) -> None:
        self.thread = thread
        self.unit = unit
        self.mode: str = thread.gateway.mode
        self.has_anthropic_key = _anthropic_credential(thread)
        self.budget = budget
        turn_timeout = unit.task.definition.run_limits.turn_timeout
        self.call_timeout = float(turn_timeout) if turn_timeout else DEFAULT_TIMEOUT

    def open(
        self,
        suffix: str,
        source: object | None,
        workdir: str | None,
        model: str | None,
        upstream: Transport | None = None,
    ) -> _GatewayRoute:
        reply_source = source if self.mode == "script" and isinstance(source, ReplySource) else None
        if upstream is not None and self.mode in ("direct", "record"):
            reply_source = TransportSource(upstream, self.call_timeout)
        route = self.thread.open_route(
            f"{route_key(self.unit)}/{suffix}",
            source=reply_source,
            budget=self.budget,
            model_hint=model,
            workdir=workdir,
            upstream=upstream is not None,
        )
        return _GatewayRoute(self.thread, route)


def _anthropic_credential(thread: GatewayThread) -> bool:
    """Whether the gateway can send a judge's Anthropic call with a credential (whichever provider serves it)."""
    from coder_eval.engine.judge_check import gateway_can_send
    from coder_eval.gateway.protocol import protocol

    return gateway_can_send(thread.gateway.resolve_for(protocol("anthropic"), None))


def _script(unit: RunUnit, oracle: bool) -> tuple[Script | None, str | None]:
    """The task's script for judge and simulator answers (the script file, even beside --oracle)."""
    from coder_eval.gateway.script_file import find_script, load_script, script_for

    try:
        if oracle:
            path = find_script(unit.task)
            if path is None:
                return None, "under --oracle, judges and the simulator still need a script file with judges:"
            return load_script(path, unit.task.row), None
        return script_for(unit.task, oracle=False), None
    except CoderEvalError as exc:
        return None, str(exc)


def _judge_source(script: Script | None, error: str | None) -> Any:
    """The scripted answer of judge criterion n (by index or description) from the task's script."""

    def source(index: int, spec: BaseCriterion, workdir: str | None) -> ReplySource:
        if script is None:
            raise JudgeUnavailableError(error or "under -b script the judge needs the task's script file")
        for entry in script.judges:
            if entry.criterion == index or entry.criterion == spec.description:
                if spec.type == "agent_judge":  # a Claude Code judge: steps in its copy, then its verdict
                    return ScriptedJudgeAgent(
                        entry, cwd=workdir, vocabulary=CLAUDE_CODE_TOOLS, marker=VERDICT_INSTRUCTION
                    )
                return ScriptedVerdict(entry)
        raise JudgeUnavailableError(
            f"the task's script has no judges: entry for criterion {index} ({spec.description!r}); "
            f"add `judges: [{{criterion: {index}, verdict: {{score: 1.0, rationale: ...}}}}]`"
        )

    return source


def gateway_judge_services(unit: RunUnit, link: GatewayLink, common: dict[str, Any]) -> JudgeServices:
    """Judge plumbing on the run's gateway; under `-b script` the answers come from the task's script."""
    opener = GatewayRoutes(link.thread, unit)
    if opener.mode == "script":
        script, error = _script(unit, link.oracle)
        common["judge_source"] = _judge_source(script, error)
        common["simulator_source"] = lambda: ScriptedSimulator(script.simulator if script is not None else [])
    return JudgeServices(backend=opener.mode, opener=opener, **common)
