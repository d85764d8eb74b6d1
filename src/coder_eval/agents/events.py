"""The event protocol every agent emits while it works.

An agent is the only emitter. The EventCollector turns the stream into a
TurnRecord; renderers and task.log read the same stream.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from coder_eval.models.telemetry import TokenUsage
from coder_eval.models.tools import ToolKind


def _now() -> datetime:
    return datetime.now(UTC)


class Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    at: datetime = Field(default_factory=_now)


class AgentStartEvent(Event):
    kind: Literal["agent_start"] = "agent_start"
    agent_type: str
    model: str | None = None
    prompt: str = ""


class AgentEndEvent(Event):
    kind: Literal["agent_end"] = "agent_end"
    status: Literal["ok", "crashed", "timeout", "stopped", "max_turns"] = "ok"
    error: str | None = None


class TurnStartEvent(Event):
    kind: Literal["turn_start"] = "turn_start"
    index: int


class TurnEndEvent(Event):
    kind: Literal["turn_end"] = "turn_end"
    index: int


class ToolStartEvent(Event):
    kind: Literal["tool_start"] = "tool_start"
    tool_use_id: str
    tool_name: str
    parameters: dict[str, Any] = Field(default_factory=dict)
    parent_tool_use_id: str | None = None
    tool_kind: ToolKind | None = None
    """The canonical kind (shell, read, write, ...); the collector fills it from the agent kind's vocabulary."""


class ToolEndEvent(Event):
    kind: Literal["tool_end"] = "tool_end"
    tool_use_id: str
    status: Literal["success", "error", "unknown", "unresolved", "refused"] = "success"
    """`refused`: the agent's permission layer blocked the call, so it never ran. A refusal that
    arrives after the call was closed (Claude Code lists denials in its result) re-marks it."""
    result_summary: str | None = None


class TextChunkEvent(Event):
    kind: Literal["text"] = "text"
    text: str
    parent_tool_use_id: str | None = None


class AssistantMessageEvent(Event):
    """One model generation with its own token usage."""

    kind: Literal["assistant_message"] = "assistant_message"
    content: str = ""
    model: str | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    parent_tool_use_id: str | None = None


class UsageEvent(Event):
    """The authoritative token total of the turn so far (replaces earlier ones)."""

    kind: Literal["usage"] = "usage"
    usage: TokenUsage
    model: str | None = None


AgentEvent = Annotated[
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | ToolStartEvent
    | ToolEndEvent
    | TextChunkEvent
    | AssistantMessageEvent
    | UsageEvent,
    Field(discriminator="kind"),
]

StreamCallback = Callable[[Any], None]
"""Receives every event; must not raise (exceptions are swallowed by `safe_emit`)."""


def safe_emit(callback: StreamCallback | None, event: Any) -> None:
    if callback is None:
        return
    try:
        callback(event)
    except Exception:  # a broken renderer must never break the agent
        import logging

        logging.getLogger(__name__).debug("stream callback failed", exc_info=True)
