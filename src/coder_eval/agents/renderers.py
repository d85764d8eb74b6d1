"""Event-stream consumers: the task.log writer and the terminal renderers (full / minimal)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from coder_eval.agents.events import (
    AgentEndEvent,
    AgentStartEvent,
    AssistantMessageEvent,
    StreamCallback,
    TextChunkEvent,
    ToolEndEvent,
    ToolStartEvent,
    safe_emit,
)


def _brief(params: dict[str, Any], limit: int = 160) -> str:
    for key in ("command", "file_path", "path", "skill", "pattern", "url"):
        value = params.get(key)
        if isinstance(value, str):
            text = value
            break
    else:
        text = json.dumps(params, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(event: Any, *, full: bool) -> str | None:
    """One human line for an event, or None when the event is not worth a line in this mode."""
    if isinstance(event, AgentStartEvent):
        return f"agent {event.agent_type} started" + (f" ({event.model})" if event.model else "")
    if isinstance(event, ToolStartEvent):
        sub = " (sub-agent)" if event.parent_tool_use_id else ""
        return f"→ {event.tool_name}{sub}: {_brief(event.parameters)}"
    if isinstance(event, ToolEndEvent):
        return f"← {event.status}" + (f": {_brief({'r': event.result_summary or ''}, 120)}" if full else "")
    if isinstance(event, TextChunkEvent) and full and event.parent_tool_use_id is None:
        text = event.text.strip()
        return f"  {text[:500]}" if text else None
    if isinstance(event, AssistantMessageEvent) and full:
        u = event.usage
        return f"  [tokens in {u.input_tokens} out {u.output_tokens}]" if u.total_tokens else None
    if isinstance(event, AgentEndEvent):
        return f"agent ended: {event.status}" + (f" ({event.error})" if event.error else "")
    return None


def log_writer(add: Callable[[str], None]) -> StreamCallback:
    """Feed task.log from the event stream."""

    def write(event: Any) -> None:
        line = describe(event, full=True)
        if line is not None:
            add(line)

    return write


def compose(*callbacks: StreamCallback | None) -> StreamCallback:
    live = [c for c in callbacks if c is not None]

    def fan_out(event: Any) -> None:
        for callback in live:
            safe_emit(callback, event)

    return fan_out
