"""The six event types of the reference system's guide, accepting the field names it leaves open.

The guide names the events but not their fields. Each class here is a subclass of the native
event (so every consumer reads it unchanged) whose optional parts have defaults and whose
fields also answer to the obvious other spellings:

- AgentStartEvent: `agent_type` defaults to ""; `prompt` also as `user_input`.
- AgentEndEvent: `usage` (also `token_usage`); statuses `success`/`completed` mean ok,
  `error`/`failed` crashed, `interrupted` stopped.
- TurnStartEvent, TurnEndEvent: `index` defaults to 0 (also `turn`, `turn_index`); TurnEnd
  also takes `usage` (or `token_usage`) and `model`.
- ToolStartEvent: `tool_use_id` also as `tool_id`, `call_id`, `id`; `tool_name` as `name`;
  `parameters` as `tool_input`, `input`, `arguments`.
- ToolEndEvent: the same ids; `result_summary` also as `output`, `result`, `content` (cut to
  500 characters); `is_error: true` means status error; statuses `ok`/`completed` mean
  success, `failed`/`failure` error.

Usage on a TurnEnd is the step's own and adds up over the turn; usage on the AgentEnd is the
turn's total and replaces the sum (see `coder_eval.streaming.collector`).
"""

from __future__ import annotations

from typing import Any

from pydantic import model_validator

from coder_eval.agents import events as native
from coder_eval.models.telemetry import TokenUsage

_RESULT_LIMIT = 500


def _rename(data: Any, target: str, *aliases: str) -> Any:
    if not isinstance(data, dict) or target in data:
        return data
    for alias in aliases:
        if alias in data:
            data = {**data, target: data[alias]}
            break
    return data


def _status(data: Any, table: dict[str, str]) -> Any:
    if isinstance(data, dict) and isinstance(data.get("status"), str):
        status = data["status"].lower()
        data = {**data, "status": table.get(status, status)}
    return data


class AgentStartEvent(native.AgentStartEvent):
    agent_type: str = ""

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        return _rename(data, "prompt", "user_input")


class AgentEndEvent(native.AgentEndEvent):
    usage: TokenUsage | None = None
    """The turn's total usage, when the agent reports it here."""

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        data = _rename(data, "usage", "token_usage")
        return _status(
            data,
            {"success": "ok", "completed": "ok", "error": "crashed", "failed": "crashed", "interrupted": "stopped"},
        )


class TurnStartEvent(native.TurnStartEvent):
    index: int = 0

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        return _rename(data, "index", "turn", "turn_index")


class TurnEndEvent(native.TurnEndEvent):
    index: int = 0
    usage: TokenUsage | None = None
    """This inner turn's own usage; the collector adds it to the turn's total."""
    model: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        return _rename(_rename(data, "index", "turn", "turn_index"), "usage", "token_usage")


class ToolStartEvent(native.ToolStartEvent):
    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        data = _rename(data, "tool_use_id", "tool_id", "call_id", "id")
        data = _rename(data, "tool_name", "name")
        return _rename(data, "parameters", "tool_input", "input", "arguments")


class ToolEndEvent(native.ToolEndEvent):
    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        data = _rename(data, "tool_use_id", "tool_id", "call_id", "id")
        data = _rename(data, "result_summary", "output", "result", "content")
        if isinstance(data, dict):
            summary = data.get("result_summary")
            if summary is not None and not isinstance(summary, str):
                summary = str(summary)
            if isinstance(summary, str):
                data = {**data, "result_summary": summary[:_RESULT_LIMIT]}
            if data.get("is_error") is True and "status" not in data:
                data = {**data, "status": "error"}
        return _status(data, {"ok": "success", "completed": "success", "failed": "error", "failure": "error"})


__all__ = ["AgentEndEvent", "AgentStartEvent", "ToolEndEvent", "ToolStartEvent", "TurnEndEvent", "TurnStartEvent"]
