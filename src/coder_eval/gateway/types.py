"""Protocol-neutral shapes of a model call, shared by the wire protocols and the reply sources.

A wire protocol parses an HTTP request into a ModelRequest and renders a ModelReply
back into its own JSON or event stream. A reply source (the scripted model, a
cassette) only ever sees these neutral shapes, so one script drives every agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["user", "assistant"]
StopReason = Literal["end_turn", "tool_use", "max_tokens"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool the agent offers the model: its name and the JSON Schema of its arguments."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)

    @property
    def parameter_names(self) -> list[str]:
        props = self.input_schema.get("properties", {})
        return list(props) if isinstance(props, dict) else []


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    content: str
    is_error: bool = False


@dataclass
class Message:
    """One conversation entry. A user entry may carry tool results; an assistant one tool calls."""

    role: Role
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)


@dataclass
class ModelRequest:
    protocol: str
    model: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    system: str = ""
    stream: bool = False
    max_tokens: int | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def last_user_text(self) -> str:
        for m in reversed(self.messages):
            if m.role == "user" and m.text:
                return m.text
        return ""

    @property
    def tool_results(self) -> list[ToolResult]:
        """Results the agent sent back for the previous reply's tool calls."""
        last = self.messages[-1] if self.messages else None
        return list(last.tool_results) if last is not None and last.role == "user" else []


@dataclass
class Usage:
    """Token buckets of one call (input is uncached input)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


@dataclass
class ModelReply:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop_reason: StopReason = "end_turn"
    model: str = "scripted"
    cost_usd: float | None = None
    """What the upstream billed, when a source relays a real provider that reports it (else priced here)."""


@dataclass
class GatewayError(Exception):
    """An error the gateway answers with (injected by a script, or a refused call)."""

    status: int
    message: str
    kind: str = "api_error"  # protocol error type, e.g. rate_limit_error, overloaded_error

    def __str__(self) -> str:
        return f"HTTP {self.status}: {self.message}"
