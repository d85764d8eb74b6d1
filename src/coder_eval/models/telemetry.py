"""What an agent did: tool calls, token buckets, transcript messages, turns."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, computed_field, model_validator

from coder_eval.models.base import RecordModel


class TokenUsage(RecordModel):
    """Token buckets and their cost. `input_tokens` is derived; cost bills uncached input only."""

    uncached_input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    reasoning_tokens: int = 0
    total_cost_usd: float | None = None

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

    tool_name: str
    tool_kind: str | None = None
    """Canonical kind of the tool (shell, read, write, edit, patch, search, ...), whatever the agent calls it."""
    parameters: dict[str, Any] = Field(default_factory=dict)
    status: Literal["success", "error", "unknown", "unresolved"] = "unknown"
    duration_ms: float = 0.0
    sequence: int = 0
    tool_use_id: str | None = None
    parent_tool_use_id: str | None = None
    result_summary: str | None = None


class UserMessage(RecordModel):
    role: Literal["user"] = "user"
    content: str = ""
    timestamp: datetime | None = None


class AssistantMessage(RecordModel):
    role: Literal["assistant"] = "assistant"
    content: str = ""
    model: str | None = None
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    parent_tool_use_id: str | None = None
    timestamp: datetime | None = None


class ReconciliationMessage(RecordModel):
    """The residual between per-message usage and the turn total; carries no cost."""

    role: Literal["reconciliation"] = "reconciliation"
    token_usage: TokenUsage = Field(default_factory=TokenUsage)


TranscriptMessage = Annotated[UserMessage | AssistantMessage | ReconciliationMessage, Field(discriminator="role")]


class ProviderCallCost(RecordModel):
    """One model call as the gateway saw it: protocol, model, latency, buckets, cost, outcome."""

    protocol: str = ""
    model: str | None = None
    latency_ms: float = 0.0
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    status: int = 200
    error: str | None = None
    side_call: bool = False


class ResultSummary(RecordModel):
    is_error: bool = False
    subtype: str | None = None
    stop_reason: str | None = None
    result: str | None = None


class TurnRecord(RecordModel):
    """One agent turn: the prompt, what the agent said and did, and what it cost."""

    iteration: int
    user_input: str = ""
    agent_output: str = ""
    commands: list[CommandTelemetry] = Field(default_factory=list)
    timestamp: datetime | None = None
    duration_seconds: float = 0.0
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    model_used: str | None = None
    assistant_turn_count: int = 0
    messages: list[TranscriptMessage] = Field(default_factory=list)
    provider_call_costs: list[ProviderCallCost] = Field(default_factory=list)
    num_turns: int | None = None
    max_turns_exhausted: bool = False
    result_summary: ResultSummary | None = None
    crashed: bool = False
    crash_reason: str | None = None


class CommandStatistics(RecordModel):
    total_commands: int = 0
    commands_by_tool: dict[str, int] = Field(default_factory=dict)
    commands_by_kind: dict[str, int] = Field(default_factory=dict)
    """Calls per canonical tool kind (shell, read, edit, ...): comparable across agents."""
    total_command_time_ms: float = 0.0
    success_rate: float | None = None
    slowest_commands: list[dict[str, Any]] = Field(default_factory=list)

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
        decided = [c for c in commands if c.status in ("success", "error")]
        rate = sum(c.status == "success" for c in decided) / len(decided) if decided else None
        slowest = sorted(commands, key=lambda c: c.duration_ms, reverse=True)[:5]
        return cls(
            total_commands=len(commands),
            commands_by_tool=by_tool,
            commands_by_kind=by_kind,
            total_command_time_ms=sum(c.duration_ms for c in commands),
            success_rate=rate,
            slowest_commands=[{"tool_name": c.tool_name, "duration_ms": c.duration_ms} for c in slowest],
        )
