"""Translate `pi --mode json` events into the harness's event protocol.

| Pi event | becomes |
|---|---|
| `session` | the session id (later turns resume it) |
| `turn_start` | TurnStartEvent (one model call) |
| `message_end` (assistant) | TextChunkEvent + AssistantMessageEvent with that call's tokens |
| `tool_execution_start` / `_end` | ToolStartEvent / ToolEndEvent |
| `message_end` with `stopReason: error` | the turn's error (the partial turn is kept) |

Pi's usage reports `input` without the cached part (`cacheRead`, `cacheWrite` apart).
"""

from __future__ import annotations

from typing import Any

from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import AssistantMessageEvent, TextChunkEvent, ToolEndEvent, ToolStartEvent, TurnStartEvent
from coder_eval.models.telemetry import TokenUsage

KNOWN = frozenset(
    {
        "session",
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "queue_update",
        "compaction_start",
        "compaction_end",
        "auto_retry_start",
        "auto_retry_end",
    }
)


def usage_of(raw: Any) -> TokenUsage:
    usage = raw if isinstance(raw, dict) else {}
    return TokenUsage(
        uncached_input_tokens=int(usage.get("input") or 0),
        output_tokens=int(usage.get("output") or 0),
        cache_read_input_tokens=int(usage.get("cacheRead") or 0),
        cache_creation_input_tokens=int(usage.get("cacheWrite") or 0),
    )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "".join(str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text")


class PiTranslator:
    """Feeds Pi events to a collector; remembers the session, the error and whether the run ended."""

    def __init__(self, collector: EventCollector) -> None:
        self.collector = collector
        self.session_id: str | None = None
        self.error: str | None = None
        self.ended = False
        self.recognized = 0
        self.unknown_types: set[str] = set()

    @staticmethod
    def is_tool_start(event: dict[str, Any]) -> bool:
        return event.get("type") == "tool_execution_start"

    def feed(self, event: dict[str, Any]) -> None:
        kind = str(event.get("type"))
        if kind not in KNOWN:
            self.unknown_types.add(kind)
            return
        self.recognized += 1
        if kind == "session":
            self.session_id = str(event.get("id") or "") or self.session_id
        elif kind == "turn_start":
            self.collector(TurnStartEvent(index=self.collector.inner_turns + 1))
        elif kind == "message_end":
            self._message(event.get("message") or {})
        elif kind == "tool_execution_start":
            args = event.get("args")
            self.collector(
                ToolStartEvent(
                    tool_use_id=str(event.get("toolCallId") or ""),
                    tool_name=str(event.get("toolName") or "unknown"),
                    parameters=args if isinstance(args, dict) else {},
                )
            )
        elif kind == "tool_execution_end":
            result = event.get("result") or {}
            self.collector(
                ToolEndEvent(
                    tool_use_id=str(event.get("toolCallId") or ""),
                    status="error" if event.get("isError") else "success",
                    result_summary=_text(result.get("content") if isinstance(result, dict) else result)[-4000:],
                )
            )
        elif kind == "agent_end":
            self.ended = True

    def _message(self, message: dict[str, Any]) -> None:
        if message.get("role") != "assistant":
            return
        text = _text(message.get("content"))
        if text:
            self.collector(TextChunkEvent(text=text))
        self.collector(
            AssistantMessageEvent(content=text, model=message.get("model"), usage=usage_of(message.get("usage")))
        )
        if message.get("stopReason") in ("error", "aborted"):
            self.error = str(message.get("errorMessage") or message.get("stopReason"))

    def problem(self) -> str | None:
        """Why a run that exited cleanly still cannot be trusted, or None."""
        if self.recognized == 0:
            seen = ", ".join(sorted(self.unknown_types)) or "nothing"
            return f"Pi printed no event this harness knows (saw: {seen}); its JSON format may have changed"
        if not self.ended:
            return "Pi exited before its agent_end event"
        return None
