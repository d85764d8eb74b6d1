"""The EventCollector a reference-style `communicate()` builds its TurnRecord with.

It is the native collector (the only place a TurnRecord is built) with the defaults the guide's
usage implies: constructed with no arguments, fed by calling it with each event, and finished
with `build_turn_record(...)`, which also takes the turn's prompt, reply, duration and usage when
the agent has them at hand. Usage carried on the lenient TurnEnd / AgentEnd events
(`coder_eval.streaming.events`) is folded in: per-step usage on TurnEnd events adds up, usage on
the AgentEnd event is the turn's total.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from coder_eval.agents import collector as native
from coder_eval.agents.events import AssistantMessageEvent, UsageEvent
from coder_eval.models.telemetry import TokenUsage, TurnRecord, UserMessage
from coder_eval.streaming.events import AgentEndEvent, TurnEndEvent


@dataclass
class EventCollector(native.EventCollector):
    """`EventCollector()`; `collector(event)` for each event; `collector.build_turn_record(...)` at the end."""

    iteration: int = 0

    def consume(self, event: object) -> None:
        super().consume(event)
        if isinstance(event, TurnEndEvent) and event.usage is not None:
            # A step's usage is one generation: the message stream then sums to the turn's total.
            super().consume(AssistantMessageEvent(content="", model=event.model or self.model, usage=event.usage))
        elif isinstance(event, AgentEndEvent) and event.usage is not None:
            super().consume(UsageEvent(usage=event.usage))

    def build_turn_record(
        self,
        *,
        ended_at: datetime | None = None,
        crashed: bool = False,
        crash_reason: str | None = None,
        max_turns_exhausted: bool = False,
        user_input: str | None = None,
        agent_output: str | None = None,
        duration_seconds: float | None = None,
        token_usage: TokenUsage | None = None,
        model_used: str | None = None,
    ) -> TurnRecord:
        """Freeze the turn; the keyword arguments fill in what the events did not say."""
        if user_input is not None:
            self.prompt = user_input
            self.messages = [
                m.model_copy(update={"content": user_input}) if isinstance(m, UserMessage) and not m.content else m
                for m in self.messages
            ]
        if token_usage is not None:
            self.total = token_usage
        if model_used is not None:
            self.model = model_used
        record = super().build_turn_record(
            ended_at=ended_at or datetime.now(UTC),
            crashed=crashed,
            crash_reason=crash_reason,
            max_turns_exhausted=max_turns_exhausted,
        )
        update: dict[str, object] = {}
        if agent_output is not None:
            update["agent_output"] = agent_output
        if duration_seconds is not None:
            update["duration_seconds"] = max(0.0, duration_seconds)
        return record.model_copy(update=update) if update else record


__all__ = ["EventCollector"]
