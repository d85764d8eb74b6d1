"""Translate `gemini -o stream-json` events into the harness's event protocol.

| Gemini CLI event | becomes |
|---|---|
| `init` | the session id (later turns resume it) |
| `message` (assistant) | TextChunkEvent |
| `tool_use` / `tool_result` | ToolStartEvent / ToolEndEvent |
| `result` | AssistantMessageEvent with the run's token totals (its `stats`) |
| `error`, or `result` with status error | the turn's error (the partial turn is kept) |

The stream gives token counts only for the whole run, so the turn carries them in one message.
"""

from __future__ import annotations

from typing import Any

from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import AssistantMessageEvent, TextChunkEvent, ToolEndEvent, ToolStartEvent, TurnStartEvent
from coder_eval.models.telemetry import TokenUsage

KNOWN = frozenset({"init", "message", "tool_use", "tool_result", "result", "error"})


def stats_usage(stats: Any) -> TokenUsage:
    """`stats` in our buckets: `input` is the uncached part (input_tokens - cached)."""
    raw = stats if isinstance(stats, dict) else {}
    total_in = int(raw.get("input_tokens") or 0)
    cached = int(raw.get("cached") or 0)
    fresh = raw.get("input")
    return TokenUsage(
        uncached_input_tokens=int(fresh) if isinstance(fresh, int) else max(0, total_in - cached),
        output_tokens=int(raw.get("output_tokens") or 0),
        cache_read_input_tokens=cached,
    )


REFUSAL_TYPES = frozenset({"policy_violation", "permission_denied", "execution_denied"})
"""Gemini CLI's error types for a tool call its policy engine (or approval mode) refused."""


def _refused(raw: Any) -> bool:
    return isinstance(raw, dict) and str(raw.get("type") or "").lower() in REFUSAL_TYPES


def _error_text(raw: Any) -> str:
    if isinstance(raw, dict):
        return str(raw.get("message") or raw.get("type") or raw)
    return str(raw)


class GeminiTranslator:
    """Feeds Gemini CLI events to a collector; remembers the session, the error and the result."""

    def __init__(self, collector: EventCollector) -> None:
        self.collector = collector
        self.session_id: str | None = None
        self.error: str | None = None
        self.result: dict[str, Any] | None = None
        self.recognized = 0
        self.unknown_types: set[str] = set()
        self._texts: list[str] = []
        self._in_model_turn = False

    @staticmethod
    def is_tool_start(event: dict[str, Any]) -> bool:
        return event.get("type") == "tool_use"

    def feed(self, event: dict[str, Any]) -> None:
        kind = str(event.get("type"))
        if kind not in KNOWN:
            self.unknown_types.add(kind)
            return
        self.recognized += 1
        if kind == "init":
            self.session_id = str(event.get("session_id") or "") or self.session_id
        elif kind == "message" and event.get("role") == "assistant":
            self._model_turn()
            text = str(event.get("content") or "")
            self._texts.append(text)
            self.collector(TextChunkEvent(text=text))
        elif kind == "tool_use":
            self._model_turn()
            params = event.get("parameters")
            self.collector(
                ToolStartEvent(
                    tool_use_id=str(event.get("tool_id") or ""),
                    tool_name=str(event.get("tool_name") or "unknown"),
                    parameters=params if isinstance(params, dict) else {},
                )
            )
        elif kind == "tool_result":
            self._in_model_turn = False
            failed = event.get("status") == "error"
            summary = event.get("output") if not failed else _error_text(event.get("error"))
            self.collector(
                ToolEndEvent(
                    tool_use_id=str(event.get("tool_id") or ""),
                    status=("refused" if _refused(event.get("error")) else "error") if failed else "success",
                    result_summary=str(summary or "")[-4000:],
                )
            )
        elif kind == "result":
            self._result(event)
        elif kind == "error" and event.get("severity") != "warning":
            self.error = _error_text(event.get("error") or event.get("message") or event)

    def _model_turn(self) -> None:
        """A model call shows as the first text or tool call after the previous tool results."""
        if not self._in_model_turn:
            self._in_model_turn = True
            self.collector(TurnStartEvent(index=self.collector.inner_turns + 1))

    def _result(self, event: dict[str, Any]) -> None:
        self.result = event
        usage = stats_usage(event.get("stats"))
        self.collector(AssistantMessageEvent(content="".join(self._texts), usage=usage))
        if event.get("status") not in (None, "success"):
            self.error = _error_text(event.get("error") or event.get("status"))

    def problem(self) -> str | None:
        if self.recognized == 0:
            seen = ", ".join(sorted(self.unknown_types)) or "nothing"
            return f"Gemini CLI printed no event this harness knows (saw: {seen}); its JSON format may have changed"
        if self.result is None and self.error is None:
            return "Gemini CLI exited without its result event"
        return None
