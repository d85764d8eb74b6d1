"""EventCollector: the one place a TurnRecord is built, from the event stream."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from coder_eval.agents.events import (
    AgentEndEvent,
    AgentStartEvent,
    AssistantMessageEvent,
    StreamCallback,
    TextChunkEvent,
    ToolEndEvent,
    ToolStartEvent,
    TurnStartEvent,
    UsageEvent,
    safe_emit,
)
from coder_eval.models.telemetry import (
    AssistantMessage,
    CommandTelemetry,
    ReconciliationMessage,
    ResultSummary,
    TokenUsage,
    TranscriptMessage,
    TurnRecord,
    UserMessage,
)
from coder_eval.models.tools import ToolVocabulary

ToolStatus = Literal["success", "error", "unknown", "unresolved", "refused"]


@dataclass
class _OpenTool:
    event: ToolStartEvent
    sequence: int


@dataclass
class EventCollector:
    """Consumes events (and forwards them) and reduces them to a TurnRecord."""

    iteration: int
    forward: StreamCallback | None = None
    prompt: str = ""
    started_at: datetime | None = None
    model: str | None = None
    commands: list[CommandTelemetry] = field(default_factory=list)
    messages: list[TranscriptMessage] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    inner_turns: int = 0
    total: TokenUsage | None = None
    end: AgentEndEvent | None = None
    vocabulary: ToolVocabulary | None = None
    """The agent kind's tool names: gives every tool call its canonical kind."""
    _open: dict[str, _OpenTool] = field(default_factory=dict)
    _sequence: int = 0

    def __call__(self, event: object) -> None:
        if isinstance(event, ToolStartEvent) and event.tool_kind is None and self.vocabulary is not None:
            event = event.model_copy(update={"tool_kind": self.vocabulary.kind_of(event.tool_name)})
        self.consume(event)
        safe_emit(self.forward, event)

    @property
    def visible_turn_count(self) -> int:
        """Resolved tool calls so far: the unit max_turns counts on some agents."""
        return len(self.commands)

    def consume(self, event: object) -> None:
        if isinstance(event, AgentStartEvent):
            self.started_at = event.at
            self.prompt = event.prompt or self.prompt
            self.model = event.model or self.model
            self.messages.append(UserMessage(content=self.prompt, timestamp=event.at))
        elif isinstance(event, TurnStartEvent):
            self.inner_turns += 1
        elif isinstance(event, ToolStartEvent):
            self._sequence += 1
            self._open[event.tool_use_id] = _OpenTool(event, self._sequence)
        elif isinstance(event, ToolEndEvent):
            self._close(event.tool_use_id, event.status, event.result_summary, event.at)
        elif isinstance(event, TextChunkEvent):
            if event.parent_tool_use_id is None:
                self.text.append(event.text)
        elif isinstance(event, AssistantMessageEvent):
            self.model = event.model or self.model
            self.messages.append(
                AssistantMessage(
                    content=event.content,
                    model=event.model,
                    token_usage=event.usage,
                    parent_tool_use_id=event.parent_tool_use_id,
                    timestamp=event.at,
                )
            )
        elif isinstance(event, UsageEvent):
            self.total = event.usage
            self.model = event.model or self.model
        elif isinstance(event, AgentEndEvent):
            self.end = event

    def _close(self, tool_use_id: str, status: ToolStatus, summary: str | None, at: datetime) -> None:
        opened = self._open.pop(tool_use_id, None)
        if opened is None:
            if status == "refused":
                self._mark_refused(tool_use_id, summary)
            return
        start = opened.event
        self.commands.append(
            CommandTelemetry(
                tool_name=start.tool_name,
                tool_kind=start.tool_kind,
                parameters=start.parameters,
                status=status,
                duration_ms=max(0.0, (at - start.at).total_seconds() * 1000),
                sequence=opened.sequence,
                tool_use_id=tool_use_id,
                parent_tool_use_id=start.parent_tool_use_id,
                result_summary=summary,
                started_at=start.at,
            )
        )

    def _mark_refused(self, tool_use_id: str, summary: str | None) -> None:
        """A refusal reported after the call's result (a denial list at the end of the turn)."""
        for i, command in enumerate(self.commands):
            if command.tool_use_id == tool_use_id and command.status != "refused":
                update: dict[str, object] = {"status": "refused"}
                if summary and not command.result_summary:
                    update["result_summary"] = summary
                self.commands[i] = command.model_copy(update=update)

    def close_orphans(self, at: datetime) -> None:
        """Tools still open when the turn ends are recorded as unresolved, not dropped."""
        for tool_use_id in list(self._open):
            self._close(tool_use_id, "unresolved", None, at)

    def _message_sum(self) -> TokenUsage:
        total = TokenUsage()
        for m in self.messages:
            if isinstance(m, AssistantMessage):
                total = total + m.token_usage
        return total

    def build_turn_record(
        self,
        *,
        ended_at: datetime,
        crashed: bool = False,
        crash_reason: str | None = None,
        max_turns_exhausted: bool = False,
    ) -> TurnRecord:
        """Freeze the turn. Message buckets plus the reconciliation entry sum to the turn total."""
        self.close_orphans(ended_at)
        streamed = self._message_sum()
        total = self.total if self.total is not None else streamed
        messages = list(self.messages)
        residual = _residual(total, streamed)
        if residual is not None:
            messages.append(ReconciliationMessage(token_usage=residual))
        start = self.started_at or ended_at
        end = self.end
        return TurnRecord(
            iteration=self.iteration,
            user_input=self.prompt,
            agent_output="".join(self.text),
            commands=sorted(self.commands, key=lambda c: c.sequence),
            timestamp=start,
            duration_seconds=max(0.0, (ended_at - start).total_seconds()),
            token_usage=total,
            model_used=self.model,
            assistant_turn_count=sum(isinstance(m, AssistantMessage) for m in messages),
            messages=messages,
            num_turns=self.inner_turns,
            max_turns_exhausted=max_turns_exhausted or (end is not None and end.status == "max_turns"),
            result_summary=ResultSummary(
                is_error=crashed, stop_reason=end.status if end else None, result=end.error if end else None
            ),
            crashed=crashed,
            crash_reason=crash_reason,
        )


def _residual(total: TokenUsage, streamed: TokenUsage) -> TokenUsage | None:
    parts = {
        "uncached_input_tokens": total.uncached_input_tokens - streamed.uncached_input_tokens,
        "output_tokens": total.output_tokens - streamed.output_tokens,
        "cache_creation_input_tokens": total.cache_creation_input_tokens - streamed.cache_creation_input_tokens,
        "cache_read_input_tokens": total.cache_read_input_tokens - streamed.cache_read_input_tokens,
    }
    if not any(parts.values()):
        return None
    return TokenUsage(**parts)
