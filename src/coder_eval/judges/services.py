"""What a judge criterion gets from the engine: its model channel, the dialog, where transcripts go.

`JudgeServices` is built once per unit by the engine and handed to checkers on the CheckContext.
`channel(spec)` opens a model channel for one judge check: a fresh gateway route (its own key,
`<unit>/judge-<n>`, so it is recorded, priced, budgeted and replayable on its own), or a direct
transport when the route says so. Under `-b script` the route answers from the script.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from coder_eval.judges.prompt import DialogMessage
from coder_eval.judges.routing import Purpose, SpendBook, judge_way
from coder_eval.judges.transport import (
    BedrockHttp,
    JudgeUnavailableError,
    LiteLLMCall,
    MessagesHttp,
    ModelAnswer,
    ModelCall,
    Transport,
)
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.providers import public_endpoint
from coder_eval.models.task_parts import ApiRouteOverride


@dataclass(frozen=True)
class RouteAddress:
    """A gateway route: its base URL (token path included) and its token."""

    base_url: str
    token: str


ScriptedSource = Callable[[int, BaseCriterion, str | None], object]
"""Under `-b script`: the reply source answering criterion n, given the judge's working directory
(a judge agent's copy) when it has one; raises JudgeUnavailableError when the script has no entry."""


@dataclass(frozen=True)
class JudgeAgentRequest:
    """What a judge agent is asked to do: its prompt and system prompt, its model and its limits."""

    spec: BaseCriterion
    prompt: str
    system: str
    model: str
    max_turns: int
    timeout: float
    include_reference: bool


@dataclass
class JudgeAgentRun:
    """What a judge agent did: its final message, its tool calls, its spend, or why it failed."""

    final_text: str = ""
    tool_calls: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    duration_seconds: float = 0.0
    way: str = ""
    model: str | None = None
    max_turns_hit: bool = False
    error: str | None = None
    unavailable: bool = False
    """True when the judge could not start here at all (no credential, no script entry)."""
    notes: list[str] = field(default_factory=list)
    """What the result's details should say besides the verdict (files left out of the judge's copy)."""


JudgeAgentRunner = Callable[[JudgeAgentRequest], JudgeAgentRun]
"""Runs a judge agent in a copy of the unit's workspace (built by the engine, which knows agents)."""


class OpenedRoute(Protocol):
    @property
    def address(self) -> RouteAddress: ...

    def close(self) -> tuple[int, int, float | None]:
        """Close the route; (input tokens, output tokens, cost) of every call it served."""
        ...


class RouteOpener(Protocol):
    """Opens gateway routes for a unit's judges and simulator (implemented on the gateway thread)."""

    mode: str
    has_anthropic_key: bool

    def open(
        self,
        suffix: str,
        source: object | None,
        workdir: str | None,
        model: str | None,
        upstream: Transport | None = None,
    ) -> OpenedRoute:
        """A route for `suffix`; `upstream` relays its calls to a provider the gateway does not speak."""
        ...


@dataclass(frozen=True)
class Endpoint:
    """A judge's own Messages-compatible endpoint (system_one_judge's base_url), its key and time limit."""

    base_url: str
    api_key_env: str | None = None
    timeout: float | None = None

    def transport(self) -> MessagesHttp:
        """The endpoint as a transport, priced from the rate card (the key is read here, never from the task)."""
        key = ""
        if self.api_key_env is not None:
            key = os.environ.get(self.api_key_env, "")
            if not key:
                raise JudgeUnavailableError(f"api_key_env names ${self.api_key_env}, which is not set")
        return MessagesHttp(self.base_url, key, name="endpoint", priced_here=True, timeout_cap=self.timeout)


@dataclass
class Channel:
    """One judge check's way to its model."""

    transport: Transport | None
    """For single forced-tool calls (llm_judge, system_one_judge, the simulator)."""
    address: RouteAddress | None = None
    """The gateway route, for a judge agent's CLI."""
    agent_env: dict[str, str] = field(default_factory=dict)
    """Variables a judge agent's CLI needs when it bypasses the gateway (bedrock, direct)."""
    way: str = "gateway"
    spent: tuple[int, int, float | None] | None = None
    """(input tokens, output tokens, cost) the gateway saw, once the channel is closed."""


@dataclass
class _Metered:
    """A transport that books every answer's spend (for transports the gateway does not see)."""

    inner: Transport
    book: SpendBook
    purpose: Purpose

    @property
    def name(self) -> str:
        return self.inner.name

    def call(self, request: ModelCall) -> ModelAnswer:
        answer = self.inner.call(request)
        self.book.add(self.purpose, answer.input_tokens, answer.output_tokens, answer.cost_usd)
        return answer


@dataclass
class JudgeServices:
    """Per-unit judge plumbing handed to checkers."""

    backend: str
    criteria: list[BaseCriterion]
    out_dir: Path
    opener: RouteOpener | None = None
    judge_source: ScriptedSource | None = None
    """Under `-b script`, builds the scripted answer for a judge check (given by the engine)."""
    simulator_source: Callable[[], object] | None = None
    """Under `-b script`, builds the simulated user's scripted lines."""
    api_route: ApiRouteOverride | None = None
    dialog: list[DialogMessage] | None = None
    call_timeout: float = 300.0
    agent_runner: JudgeAgentRunner | None = None
    """Runs agent_judge's judge agent (set by the engine once the unit's sandbox exists)."""
    reference_dir: Path | None = None
    spend: SpendBook = field(default_factory=SpendBook)
    info: dict[str, Any] = field(default_factory=dict)
    _checks: dict[int, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def index_of(self, spec: BaseCriterion) -> int:
        for i, crit in enumerate(self.criteria):
            if crit is spec:
                return i
        for i, crit in enumerate(self.criteria):
            if crit == spec:
                return i
        return -1

    def _suffix(self, index: int) -> str:
        with self._lock:
            n = self._checks.get(index, 0) + 1
            self._checks[index] = n
        return f"judge-{index}" if n == 1 else f"judge-{index}.{n}"

    @contextlib.contextmanager
    def channel(
        self,
        spec: BaseCriterion,
        source: object | None = None,
        *,
        workdir: str | None = None,
        model: str | None = None,
        endpoint: Endpoint | None = None,
    ) -> Iterator[Channel]:
        """A channel for one check of `spec`; `source` answers it under `-b script`.

        With a gateway, single-call judges routed to Bedrock or litellm still call their own gateway
        route, which relays to that provider (and records, prices and replays the call); a judge
        agent on Bedrock, or any judge under `-b bedrock` (no gateway), calls the provider itself.
        A judge with its own `endpoint` is relayed there the same way (scripted under `-b script`)."""
        own = endpoint is not None and self.backend != "script"
        way = "endpoint" if own else judge_way(self.backend, self.api_route)
        relayed = way in ("bedrock", "litellm", "endpoint") and self.opener is not None and spec.type != "agent_judge"
        label = "gateway (script)" if self.backend == "script" else (f"gateway ({way})" if relayed else way)
        self.info.setdefault("judge_transport", label)
        if way == "endpoint" and endpoint is not None and self.opener is None:
            yield Channel(_Metered(endpoint.transport(), self.spend, "judge"), way="endpoint")
            return
        if way == "gateway" or relayed:
            if self.opener is None:
                raise JudgeUnavailableError("no model gateway is running for this unit")
            upstream = (
                self._upstream(way, spec, endpoint) if relayed and self.opener.mode in ("direct", "record") else None
            )
            if way == "gateway" and self.opener.mode in ("direct", "record") and not self.opener.has_anthropic_key:
                raise JudgeUnavailableError(
                    f"{spec.type} needs ANTHROPIC_API_KEY under -b {self.opener.mode} (the judge calls Anthropic "
                    "through the gateway); set it, or choose checker_context.api_route.route: bedrock"
                )
            index = self.index_of(spec)
            if self.backend == "script" and source is None:
                if self.judge_source is None:
                    raise JudgeUnavailableError("under -b script the judge needs the task's script file")
                source = self.judge_source(index, spec, workdir)
            route = self.opener.open(self._suffix(index), source, workdir, model, upstream)
            transport = MessagesHttp(route.address.base_url, route.address.token, name="gateway")
            channel = Channel(transport, address=route.address, way=label if relayed else "gateway")
            try:
                yield channel
            finally:
                channel.spent = route.close()
                self.spend.add("judge", *channel.spent)
            return
        yield self._direct_channel(way, spec)

    def _upstream(self, way: str, spec: BaseCriterion, endpoint: Endpoint | None = None) -> Transport:
        """The provider a relayed judge route calls (credentials read here, never from the task)."""
        if endpoint is not None:
            return endpoint.transport()
        if way == "litellm":
            if spec.type != "llm_judge":
                raise JudgeUnavailableError(f"route: litellm drives llm_judge only, not {spec.type}")
            route = self.api_route
            assert route is not None and route.model is not None
            return LiteLLMCall(route.model, route.params, route.env_params)
        return BedrockHttp.from_env()

    def _direct_channel(self, way: str, spec: BaseCriterion) -> Channel:
        route = self.api_route
        if way == "litellm":
            if spec.type != "llm_judge":
                raise JudgeUnavailableError(f"route: litellm drives llm_judge only, not {spec.type}")
            assert route is not None and route.model is not None
            return Channel(
                _Metered(LiteLLMCall(route.model, route.params, route.env_params), self.spend, "judge"), way="litellm"
            )
        if way == "bedrock":
            bedrock = BedrockHttp.from_env()
            env = {k: v for k in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_REGION") if (v := os.environ.get(k))}
            return Channel(
                _Metered(bedrock, self.spend, "judge"), agent_env={**env, "CLAUDE_CODE_USE_BEDROCK": "1"}, way="bedrock"
            )
        key = os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise JudgeUnavailableError(f"{spec.type} with route: direct needs ANTHROPIC_API_KEY set")
        base = os.environ.get("ANTHROPIC_BASE_URL") or public_endpoint("anthropic")
        direct = MessagesHttp(base, key, name="anthropic", priced_here=True)
        return Channel(_Metered(direct, self.spend, "judge"), agent_env={"ANTHROPIC_API_KEY": key}, way="anthropic")


@contextlib.contextmanager
def simulator_channel(services: JudgeServices) -> Iterator[Transport]:
    """The simulated user's channel for a whole dialog: its own gateway route, like the agent's.

    `checker_context.api_route` has no say here; under `-b bedrock` the simulator calls Bedrock.
    """
    if services.backend == "bedrock" or services.opener is None:
        yield _Metered(BedrockHttp.from_env(), services.spend, "simulator")
        return
    if services.opener.mode in ("direct", "record") and not services.opener.has_anthropic_key:
        raise JudgeUnavailableError(f"the simulated user needs ANTHROPIC_API_KEY under -b {services.opener.mode}")
    source = services.simulator_source() if services.simulator_source is not None else None
    route = services.opener.open("simulator", source, None, None)
    try:
        yield MessagesHttp(route.address.base_url, route.address.token, name="gateway")
    finally:
        services.spend.add("simulator", *route.close())
