"""Translate `opencode run --format json` events into the harness's event protocol.

| OpenCode event | becomes |
|---|---|
| `step_start` | TurnStartEvent (one model call) |
| `text` | TextChunkEvent |
| `tool_use` (one terminal event) | ToolStartEvent + ToolEndEvent |
| `step_finish` | AssistantMessageEvent with that step's tokens |
| `error` | the turn's error (the partial turn is kept) |

`tokens.input` comes in two conventions; the step's own `total` tells which (see `step_usage`).
"""

from __future__ import annotations

from typing import Any, Literal

from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import AssistantMessageEvent, TextChunkEvent, ToolEndEvent, ToolStartEvent, TurnStartEvent
from coder_eval.models.telemetry import TokenUsage

KNOWN = frozenset({"step_start", "step_finish", "text", "tool_use", "error", "reasoning"})


def step_usage(tokens: dict[str, Any]) -> tuple[TokenUsage, bool]:
    """A step's tokens in our buckets, and whether its `total` confirmed the reading.

    Flat: `input` is the fresh part and total = input + output + reasoning + cache read/write.
    Nested (OpenAI's prompt_tokens): cached tokens sit inside `input` and total = input + output
    + reasoning. Reasoning is billed as output, so it is folded into output_tokens.
    """
    cache = tokens.get("cache") or {}
    read, write = int(cache.get("read") or 0), int(cache.get("write") or 0)
    fresh, out, reasoning = (
        int(tokens.get("input") or 0),
        int(tokens.get("output") or 0),
        int(tokens.get("reasoning") or 0),
    )
    total = tokens.get("total")
    confirmed = total is None and read == write == 0
    if isinstance(total, int | float):
        if total == fresh + out + reasoning + read + write:
            confirmed = True
        elif total == fresh + out + reasoning:
            fresh, confirmed = max(0, fresh - read - write), True
    usage = TokenUsage(
        uncached_input_tokens=fresh,
        output_tokens=out + reasoning,
        cache_read_input_tokens=read,
        cache_creation_input_tokens=write,
        reasoning_tokens=reasoning,
    )
    return usage, confirmed


REFUSALS = ("rejected permission to use", "rule which prevents you from using")
"""How OpenCode words a tool call its permission rules refused (a `deny` rule, or an `ask` no one answered)."""


def _tool_status(state: dict[str, Any]) -> Literal["success", "error", "unknown", "refused"]:
    status = state.get("status")
    if status == "error":
        error = str(state.get("error") or "").lower()
        return "refused" if any(marker in error for marker in REFUSALS) else "error"
    if status != "completed":
        return "unknown"
    code = (state.get("metadata") or {}).get("exit")
    return "error" if isinstance(code, int) and code != 0 else "success"


class OpenCodeTranslator:
    """Feeds OpenCode events to a collector; remembers the session, errors and token coverage."""

    def __init__(self, collector: EventCollector) -> None:
        self.collector = collector
        self.session_id: str | None = None
        self.error: str | None = None
        self.warning: str | None = None
        self.recognized = 0
        self.unknown_types: set[str] = set()
        self.finished_steps = 0
        self.steps_with_tokens = 0
        self._texts: list[str] = []

    def is_tool_start(self, event: dict[str, Any]) -> bool:
        return event.get("type") == "tool_use"

    def feed(self, event: dict[str, Any]) -> None:
        kind = str(event.get("type"))
        self.session_id = event.get("sessionID") or self.session_id
        if kind not in KNOWN:
            self.unknown_types.add(kind)
            return
        self.recognized += 1
        part = event.get("part") or {}
        if kind == "step_start":
            self.collector(TurnStartEvent(index=self.collector.inner_turns + 1))
        elif kind == "text":
            text = str(part.get("text") or "")
            self._texts.append(text)
            self.collector(TextChunkEvent(text=text))
        elif kind == "tool_use":
            self._tool(part)
        elif kind == "step_finish":
            self._step_finish(part)
        elif kind == "error":
            self.error = _error_text(event)

    def _tool(self, part: dict[str, Any]) -> None:
        state = part.get("state") or {}
        call_id = str(part.get("callID") or part.get("id") or "")
        name = str(part.get("tool") or "unknown")
        params = state.get("input") if isinstance(state.get("input"), dict) else {}
        self.collector(ToolStartEvent(tool_use_id=call_id, tool_name=name, parameters=params))
        output = state.get("output") if state.get("status") == "completed" else state.get("error")
        self.collector(
            ToolEndEvent(tool_use_id=call_id, status=_tool_status(state), result_summary=str(output or "")[-4000:])
        )

    def _step_finish(self, part: dict[str, Any]) -> None:
        self.finished_steps += 1
        tokens = part.get("tokens")
        usage = TokenUsage()
        if isinstance(tokens, dict) and any(tokens.get(k) for k in ("input", "output", "total")):
            self.steps_with_tokens += 1
            usage, confirmed = step_usage(tokens)
            if not confirmed and self.warning is None:
                self.warning = f"OpenCode token total {tokens.get('total')} matches neither known reading"
        self.collector(AssistantMessageEvent(content="".join(self._texts), usage=usage))
        self._texts = []

    def problem(self, *, require_tokens: bool) -> str | None:
        """Why a turn that exited cleanly still cannot be trusted, or None."""
        if self.recognized == 0:
            seen = ", ".join(sorted(self.unknown_types)) or "nothing"
            return f"OpenCode printed no event this harness knows (saw: {seen}); its JSON format may have changed"
        if self.finished_steps and not self.steps_with_tokens:
            message = f"none of {self.finished_steps} finished steps reported token counts"
            if require_tokens:
                return message + " (set agent.require_token_telemetry: false to score such turns anyway)"
            self.warning = message
        return None


def _error_text(event: dict[str, Any]) -> str:
    error = event.get("error") or (event.get("part") or {}).get("error") or {}
    if isinstance(error, dict):
        data = error.get("data") or {}
        message = data.get("message") if isinstance(data, dict) else None
        return str(message or error.get("message") or error.get("name") or error)
    return str(error)
