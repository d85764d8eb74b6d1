"""What an agent did: tool calls, token buckets, transcript messages, turns."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, computed_field, model_validator

from coder_eval.models.base import RecordModel


class TokenUsage(RecordModel):
    """Token buckets and their cost. `input_tokens` is derived; cost bills uncached input only."""

    uncached_input_tokens: int = Field(0, description="Input tokens neither written to nor read from the prompt cache.")
    output_tokens: int = Field(0, description="Output tokens.")
    cache_creation_input_tokens: int = Field(0, description="Input tokens written to the prompt cache.")
    cache_read_input_tokens: int = Field(0, description="Input tokens read from the prompt cache.")
    reasoning_tokens: int = Field(
        0, description="Reasoning tokens, when the provider reports them (part of the output)."
    )
    total_cost_usd: float | None = Field(
        None, description="Cost in dollars; None when the model has no price (unpriced is not free)."
    )

    @model_validator(mode="before")
    @classmethod
    def _adopt_legacy_input(cls, data: Any) -> Any:
        if isinstance(data, dict) and "uncached_input_tokens" not in data and "input_tokens" in data:
            data = {**data, "uncached_input_tokens": data["input_tokens"]}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def input_tokens(self) -> int:
        return self.uncached_input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        cost: float | None
        if self.total_cost_usd is None and other.total_cost_usd is None:
            cost = None
        else:
            cost = (self.total_cost_usd or 0.0) + (other.total_cost_usd or 0.0)
        return TokenUsage(
            uncached_input_tokens=self.uncached_input_tokens + other.uncached_input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            total_cost_usd=cost,
        )


class CommandTelemetry(RecordModel):
    """One tool call."""

    tool_name: str = Field(description="The tool the agent called.")
    tool_kind: str | None = Field(
        None, description="Canonical kind of the tool (shell, read, write, edit, patch, search, ...)."
    )
    parameters: dict[str, Any] = Field(default_factory=dict, description="The call's arguments.")
    status: Literal["success", "error", "unknown", "unresolved", "refused"] = Field(
        "unknown",
        description="How the call ended: success, error, unknown, unresolved (no result came back), or refused "
        "(the agent's permission layer blocked it, so it never ran).",
    )
    duration_ms: float = Field(0.0, description="Time from the call to its result.")
    sequence: int = Field(0, description="Position of the call in the task, from 0.")
    tool_use_id: str | None = Field(None, description="The provider's id for the call.")
    parent_tool_use_id: str | None = Field(None, description="The call that spawned this one (a sub-agent), if any.")
    result_summary: str | None = Field(None, description="The start of the tool's result.")
    started_at: datetime | None = Field(
        None, description="When the agent reported the call (None in records written before it was kept)."
    )


class UserMessage(RecordModel):
    role: Literal["user"] = Field("user", description="Always `user`.")
    content: str = Field("", description="The text sent to the agent.")
    timestamp: datetime | None = Field(None, description="When it was sent.")


class AssistantMessage(RecordModel):
    role: Literal["assistant"] = Field("assistant", description="Always `assistant`.")
    content: str = Field("", description="The agent's text.")
    model: str | None = Field(None, description="The model that answered.")
    token_usage: TokenUsage = Field(default_factory=TokenUsage, description="Tokens and cost of this message.")
    parent_tool_use_id: str | None = Field(
        None, description="The tool call (a sub-agent) this message belongs to, if any."
    )
    timestamp: datetime | None = Field(None, description="When it was received.")


class ReconciliationMessage(RecordModel):
    """The residual between per-message usage and the turn total; carries no cost."""

    role: Literal["reconciliation"] = Field("reconciliation", description="Always `reconciliation`.")
    token_usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Turn total minus the sum of the messages' usage."
    )


TranscriptMessage = Annotated[UserMessage | AssistantMessage | ReconciliationMessage, Field(discriminator="role")]


class ProviderCallCost(RecordModel):
    """One model call as the gateway saw it: protocol, model, latency, buckets, cost, outcome."""

    protocol: str = Field("", description="Wire protocol of the call (anthropic, openai_chat, ...).")
    provider: str | None = Field(None, description="The provider profile the call was sent to (direct, record).")
    model: str | None = Field(None, description="Model named in the request.")
    latency_ms: float = Field(0.0, description="Time until the full reply.")
    token_usage: TokenUsage = Field(default_factory=TokenUsage, description="Tokens and cost of the call.")
    status: int = Field(200, description="HTTP status returned to the agent.")
    error: str | None = Field(None, description="Why the call failed or was refused, if it was.")
    side_call: bool = Field(False, description="True for calls outside the agent's main loop (titles, summaries).")


class ResultSummary(RecordModel):
    is_error: bool = Field(False, description="True when the agent ended its turn with an error.")
    subtype: str | None = Field(None, description="The agent's own code for how the turn ended.")
    stop_reason: str | None = Field(None, description="Why the model stopped (end_turn, max_tokens, ...).")
    result: str | None = Field(None, description="The agent's final text of the turn.")


class TurnRecord(RecordModel):
    """One agent turn: the prompt, what the agent said and did, and what it cost."""

    iteration: int = Field(description="Turn number, from 1.")
    user_input: str = Field("", description="The prompt of this turn.")
    agent_output: str = Field("", description="The agent's final text of this turn.")
    commands: list[CommandTelemetry] = Field(
        default_factory=list, description="Tool calls made during the turn, in order."
    )
    timestamp: datetime | None = Field(None, description="When the turn started.")
    duration_seconds: float = Field(0.0, description="Wall-clock duration of the turn.")
    token_usage: TokenUsage = Field(default_factory=TokenUsage, description="Tokens and cost of the turn.")
    model_used: str | None = Field(None, description="Model the agent reported for this turn.")
    assistant_turn_count: int = Field(0, description="Assistant messages in the turn.")
    messages: list[TranscriptMessage] = Field(
        default_factory=list, description="The turn's transcript: user, assistant and reconciliation entries."
    )
    provider_call_costs: list[ProviderCallCost] = Field(
        default_factory=list, description="Each model call the gateway saw during the turn."
    )
    num_turns: int | None = Field(None, description="Model round-trips the agent reported for the turn.")
    max_turns_exhausted: bool = Field(False, description="True when the turn hit the max_turns limit.")
    result_summary: ResultSummary | None = Field(None, description="How the agent said the turn ended.")
    crashed: bool = Field(False, description="True when the agent process died during the turn.")
    crash_reason: str | None = Field(None, description="Why it died, if it did.")


class CommandStatistics(RecordModel):
    total_commands: int = Field(0, description="Tool calls over every turn.")
    commands_by_tool: dict[str, int] = Field(default_factory=dict, description="Tool name -> number of calls.")
    commands_by_kind: dict[str, int] = Field(
        default_factory=dict, description="Canonical tool kind -> number of calls (comparable across agents)."
    )
    total_command_time_ms: float = Field(0.0, description="Sum of tool-call durations.")
    refused_commands: int = Field(
        0, description="Calls the agent's permission layer refused (they never ran; counted in total_commands)."
    )
    refused_by_tool: dict[str, int] = Field(default_factory=dict, description="Tool name -> refused calls.")
    success_rate: float | None = Field(
        None, description="Share of calls with a known outcome that succeeded; None when none had one."
    )
    slowest_commands: list[dict[str, Any]] = Field(
        default_factory=list, description="The five slowest calls (tool name and duration)."
    )

    @classmethod
    def from_turns(cls, turns: list[TurnRecord]) -> CommandStatistics:
        commands = [c for t in turns for c in t.commands]
        if not commands:
            return cls()
        by_tool: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        for c in commands:
            by_tool[c.tool_name] = by_tool.get(c.tool_name, 0) + 1
            if c.tool_kind is not None:
                by_kind[c.tool_kind] = by_kind.get(c.tool_kind, 0) + 1
        refused: dict[str, int] = {}
        for c in commands:
            if c.status == "refused":
                refused[c.tool_name] = refused.get(c.tool_name, 0) + 1
        decided = [c for c in commands if c.status in ("success", "error", "refused")]
        rate = sum(c.status == "success" for c in decided) / len(decided) if decided else None
        slowest = sorted(commands, key=lambda c: c.duration_ms, reverse=True)[:5]
        return cls(
            total_commands=len(commands),
            commands_by_tool=by_tool,
            commands_by_kind=by_kind,
            total_command_time_ms=sum(c.duration_ms for c in commands),
            refused_commands=sum(refused.values()),
            refused_by_tool=refused,
            success_rate=rate,
            slowest_commands=[{"tool_name": c.tool_name, "duration_ms": c.duration_ms} for c in slowest],
        )
