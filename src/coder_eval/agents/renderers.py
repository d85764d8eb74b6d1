"""Event-stream consumers: the task.log writer and the terminal renderers (full / minimal).

Everything an event carries came from the agent (its words, tool names and arguments, results,
errors), so `describe` cleans it (common/untrusted_text.py): no escape sequence or control
character survives, a tool line stays one line, and the agent's own text is set off behind
`TEXT_MARK` on every line, so nothing it writes starts where a harness line starts.
"""

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
from coder_eval.common.untrusted_text import clean_text, prefixed_lines

TEXT_MARK = "  ┆ "
"""What every line of the agent's own text starts with, in task.log and on the terminal."""


def _brief(params: dict[str, Any], limit: int = 160) -> str:
    for key in ("command", "file_path", "path", "skill", "pattern", "url"):
        value = params.get(key)
        if isinstance(value, str):
            text = value
            break
    else:
        text = json.dumps(params, default=str)
    return _one_line(text, limit)


def _one_line(text: str, limit: int) -> str:
    """The agent's `text` cleaned, its whitespace runs (line breaks too) as single spaces, cut at `limit`."""
    text = " ".join(clean_text(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(event: Any, *, full: bool) -> str | None:
    """One human line for an event, or None when the event is not worth a line in this mode."""
    if isinstance(event, AgentStartEvent):
        model = f" ({_one_line(event.model, 120)})" if event.model else ""
        return f"agent {_one_line(event.agent_type, 80)} started{model}"
    if isinstance(event, ToolStartEvent):
        sub = " (sub-agent)" if event.parent_tool_use_id else ""
        return f"→ {_one_line(event.tool_name, 80)}{sub}: {_brief(event.parameters)}"
    if isinstance(event, ToolEndEvent):
        result = f": {_one_line(event.result_summary or '', 120)}" if full else ""
        return f"← {_one_line(str(event.status), 40)}{result}"
    if isinstance(event, TextChunkEvent) and full and event.parent_tool_use_id is None:
        text = event.text.strip()
        return "\n".join(prefixed_lines(text[:500], TEXT_MARK)) if text else None
    if isinstance(event, AssistantMessageEvent) and full:
        u = event.usage
        return f"  [tokens in {u.input_tokens} out {u.output_tokens}]" if u.total_tokens else None
    if isinstance(event, AgentEndEvent):
        error = f" ({_one_line(event.error, 500)})" if event.error else ""
        return f"agent ended: {_one_line(str(event.status), 40)}{error}"
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
