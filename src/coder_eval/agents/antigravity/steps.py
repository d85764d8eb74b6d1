"""Translate the Antigravity SDK's steps into the harness's event protocol.

The SDK sends a step each time it changes: a tool call is seen ACTIVE first, then DONE or ERROR;
a model text answer arrives as a TEXT_RESPONSE from the model. Steps of subagents (depth > 0)
are kept with their parent's id. Arguments are recorded with the canonical `command` and
`file_path` keys beside the harness's own, and any result fields the harness appends to the
arguments are dropped, so a tool's output never reads as its input.
"""

from __future__ import annotations

from typing import Any

from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import AssistantMessageEvent, TextChunkEvent, ToolEndEvent, ToolStartEvent, TurnStartEvent
from coder_eval.models.telemetry import TokenUsage

_RESULT_FIELDS = frozenset({"exit_code", "combined_output", "diff_block", "stdout", "stderr", "output", "result"})
_CANONICAL = {
    "command": ("CommandLine", "command_line"),
    "file_path": ("TargetFile", "target_file", "AbsolutePath", "absolute_path"),
}


def parameters(args: Any) -> dict[str, Any]:
    """The call's arguments without result fields, plus the canonical keys criteria read."""
    raw = {k: v for k, v in (args if isinstance(args, dict) else {}).items() if k not in _RESULT_FIELDS}
    for canonical, names in _CANONICAL.items():
        value = next((raw[n] for n in names if isinstance(raw.get(n), str)), None)
        if value is not None and canonical not in raw:
            raw[canonical] = value
    return raw


def usage_between(before: Any, after: Any) -> TokenUsage:
    """Tokens spent between two cumulative UsageMetadata readings, in our buckets.

    Gemini counts cached tokens inside the prompt, bills no cache writes, and thinking is output.
    """

    def field(usage: Any, name: str) -> int:
        return int(getattr(usage, name, None) or 0)

    def spent(name: str) -> int:
        return max(0, field(after, name) - field(before, name))

    cached = spent("cached_content_token_count")
    thoughts = spent("thoughts_token_count")
    return TokenUsage(
        uncached_input_tokens=max(0, spent("prompt_token_count") - cached),
        cache_read_input_tokens=cached,
        output_tokens=spent("candidates_token_count") + thoughts,
        reasoning_tokens=thoughts,
    )


class StepTranslator:
    """Feeds SDK steps to a collector; counts tool calls and remembers the last model error."""

    def __init__(self, collector: EventCollector) -> None:
        self.collector = collector
        self.error: str | None = None
        self.http_code = 0
        self._open: dict[str, str] = {}
        self._closed: set[str] = set()
        self._texts: list[str] = []
        self._text_steps: set[str] = set()
        self._last_source_model = False

    def starts_tool(self, step: Any) -> bool:
        """Whether `step` would open a tool call not seen before."""
        return self._kind(step) == "TOOL_CALL" and bool(step.tool_calls) and step.id not in self._open

    def feed(self, step: Any) -> None:
        kind, status = self._kind(step), _value(step.status)
        parent = self._open.get(step.parent_trajectory_id) if step.depth else None
        if kind == "TOOL_CALL" and step.tool_calls:
            self._tool(step, status, parent)
        elif kind == "TEXT_RESPONSE" and self._new_answer(step, status):
            self._text_steps.add(step.id)
            self._model_call()
            self._texts.append(step.content)
            self.collector(TextChunkEvent(text=step.content))
        if status == "ERROR" and kind != "TOOL_CALL":
            self.error = step.error or "the harness reported an error"
            self.http_code = int(getattr(step, "http_code", 0) or 0)

    def _tool(self, step: Any, status: str, parent: str | None) -> None:
        call = step.tool_calls[0]
        if step.id not in self._open:
            self._model_call()
            self._open[step.id] = step.id
            self.collector(
                ToolStartEvent(
                    tool_use_id=step.id,
                    tool_name=str(call.name),
                    parameters=parameters(call.args),
                    parent_tool_use_id=parent,
                )
            )
        if status in ("DONE", "ERROR", "CANCELED") and step.id not in self._closed:
            self._closed.add(step.id)
            self._last_source_model = False
            args = call.args if isinstance(call.args, dict) else {}
            failed = status != "DONE" or str(args.get("exit_code", "0")).strip() not in ("0", "")
            summary = step.error if status != "DONE" and step.error else _output(args, step.content)
            self.collector(
                ToolEndEvent(
                    tool_use_id=step.id,
                    status="error" if failed else "success",
                    result_summary=str(summary or "")[-4000:],
                )
            )

    def _new_answer(self, step: Any, status: str) -> bool:
        """A finished top-level model answer not seen before."""
        top_level = step.depth == 0 and step.id not in self._text_steps
        return top_level and _value(step.source) == "MODEL" and status == "DONE"

    def _model_call(self) -> None:
        if not self._last_source_model:
            self._last_source_model = True
            self.collector(TurnStartEvent(index=self.collector.inner_turns + 1))

    def finish(self, usage: TokenUsage) -> None:
        """Close the turn's model output: one message carrying the turn's tokens."""
        self.collector(AssistantMessageEvent(content="".join(self._texts), usage=usage))

    @staticmethod
    def _kind(step: Any) -> str:
        return _value(step.type)


def _output(args: dict[str, Any], fallback: str) -> str:
    """What the tool returned: the harness appends it to the call's arguments (a command's output)."""
    for key in ("combined_output", "stdout", "output", "result"):
        value = args.get(key)
        if isinstance(value, str):
            return value.replace("\r\n", "\n")
    return fallback


def _value(member: Any) -> str:
    return str(getattr(member, "value", member))
