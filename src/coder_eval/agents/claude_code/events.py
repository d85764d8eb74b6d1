"""Translate Claude Agent SDK messages into the harness's event protocol."""

from __future__ import annotations

from typing import Any

from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import (
    AssistantMessageEvent,
    TextChunkEvent,
    ToolEndEvent,
    ToolStartEvent,
    TurnStartEvent,
    UsageEvent,
)
from coder_eval.models.telemetry import TokenUsage


def usage_from(raw: dict[str, Any] | None) -> TokenUsage:
    raw = raw or {}
    return TokenUsage(
        uncached_input_tokens=int(raw.get("input_tokens") or 0),
        output_tokens=int(raw.get("output_tokens") or 0),
        cache_creation_input_tokens=int(raw.get("cache_creation_input_tokens") or 0),
        cache_read_input_tokens=int(raw.get("cache_read_input_tokens") or 0),
    )


REFUSAL_MARKERS = (
    "requires approval",
    "haven't granted it yet",
    "has been denied",
    "permission to use",
)
"""How Claude Code words a tool result its permission layer refused (the result's denial list
is the authoritative record; these let a turn cut short before its result still say so)."""


def refused_text(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in REFUSAL_MARKERS)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


class SdkTranslator:
    """Feeds SDK messages to a collector; one API response split over several messages counts once."""

    def __init__(self, collector: EventCollector) -> None:
        self.collector = collector
        self.seen_messages: set[str] = set()
        self.result: Any = None
        self.session_id: str | None = None
        self.api_error: str | None = None

    def feed(self, message: Any) -> None:
        from claude_agent_sdk import AssistantMessage, ResultMessage, SystemMessage, UserMessage

        if isinstance(message, SystemMessage):
            self.session_id = message.data.get("session_id", self.session_id)
        elif isinstance(message, AssistantMessage):
            self._assistant(message)
        elif isinstance(message, UserMessage):
            self._user(message)
        elif isinstance(message, ResultMessage):
            self.result = message
            self.session_id = message.session_id or self.session_id
            self._denials(message.permission_denials)
            self.collector(UsageEvent(usage=usage_from(message.usage), model=None))

    def _denials(self, denials: Any) -> None:
        """Every call the result lists as denied is re-marked refused (it never ran)."""
        for denial in denials or []:
            tool_use_id = denial.get("tool_use_id") if isinstance(denial, dict) else None
            if isinstance(tool_use_id, str):
                self.collector(
                    ToolEndEvent(
                        tool_use_id=tool_use_id,
                        status="refused",
                        result_summary=f"refused by Claude Code's permission layer ({denial.get('tool_name')})",
                    )
                )

    def _assistant(self, message: Any) -> None:
        from claude_agent_sdk import TextBlock, ToolUseBlock

        if message.error:
            self.api_error = str(message.error)
        key = message.message_id or message.uuid or str(id(message))
        first = key not in self.seen_messages
        if first:
            self.seen_messages.add(key)
            if message.parent_tool_use_id is None:
                self.collector(TurnStartEvent(index=self.collector.inner_turns + 1))
        texts = []
        for block in message.content:
            if isinstance(block, TextBlock):
                texts.append(block.text)
                self.collector(TextChunkEvent(text=block.text, parent_tool_use_id=message.parent_tool_use_id))
            elif isinstance(block, ToolUseBlock):
                self.collector(
                    ToolStartEvent(
                        tool_use_id=block.id,
                        tool_name=block.name,
                        parameters=block.input,
                        parent_tool_use_id=message.parent_tool_use_id,
                    )
                )
        if first:  # later parts of the same API response carry the same usage again
            self.collector(
                AssistantMessageEvent(
                    content="".join(texts),
                    model=message.model,
                    usage=usage_from(message.usage),
                    parent_tool_use_id=message.parent_tool_use_id,
                )
            )

    def _user(self, message: Any) -> None:
        from claude_agent_sdk import ToolResultBlock

        if isinstance(message.content, str):
            return
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                text = _result_text(block.content)
                status = "error" if block.is_error else "success"
                if block.is_error and refused_text(text):
                    status = "refused"
                self.collector(ToolEndEvent(tool_use_id=block.tool_use_id, status=status, result_summary=text))
