"""Translate `codex exec --json` events into the harness's event protocol.

Codex reports each command and file change as an item that starts and completes, the agent's
replies as `agent_message` items, and the turn's token total once, on `turn.completed` (input
there includes the cached part, as in OpenAI's usage objects).
"""

from __future__ import annotations

from typing import Any

from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import AssistantMessageEvent, TextChunkEvent, ToolEndEvent, ToolStartEvent, TurnStartEvent
from coder_eval.agents.events import UsageEvent as TotalEvent
from coder_eval.models.telemetry import TokenUsage

TOOL_ITEMS = frozenset({"command_execution", "file_change", "mcp_tool_call", "web_search", "todo_list"})


def usage_from(raw: dict[str, Any] | None) -> TokenUsage:
    raw = raw or {}
    total_in = int(raw.get("input_tokens") or 0)
    cached = int(raw.get("cached_input_tokens") or 0)
    written = int(raw.get("cache_write_input_tokens") or 0)
    return TokenUsage(
        uncached_input_tokens=max(0, total_in - cached - written),
        cache_read_input_tokens=cached,
        cache_creation_input_tokens=written,
        output_tokens=int(raw.get("output_tokens") or 0),
        reasoning_tokens=int(raw.get("reasoning_output_tokens") or 0),
    )


def _tool(item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The raw tool name and the parameters recorded for a tool item."""
    kind = item.get("type")
    if kind == "command_execution":
        return "shell", {"command": item.get("command", "")}
    if kind == "file_change":
        changes = [{"path": c.get("path"), "kind": c.get("kind")} for c in item.get("changes") or []]
        return "apply_patch", {"changes": changes, "path": ", ".join(str(c["path"]) for c in changes)}
    if kind == "mcp_tool_call":
        return f"mcp__{item.get('server')}__{item.get('tool')}", dict(item.get("arguments") or {})
    if kind == "web_search":
        return "web_search", {"query": item.get("query", "")}
    return "update_plan", {"items": item.get("items") or []}


def _status(item: dict[str, Any]) -> str:
    if item.get("status") == "declined":  # its approval policy refused the call: it never ran
        return "refused"
    if item.get("type") == "command_execution":
        code = item.get("exit_code")
        return "success" if code == 0 else ("error" if code is not None else "unknown")
    state = str(item.get("status") or "completed")
    return "error" if state == "failed" else "success"


def _summary(item: dict[str, Any]) -> str | None:
    if item.get("type") == "command_execution":
        return str(item.get("aggregated_output") or "")[-4000:]
    if item.get("type") == "mcp_tool_call":
        return str(item.get("result") or item.get("error") or "")[-4000:]
    return None


class CodexTranslator:
    """Feeds Codex events to a collector and remembers the thread id, the usage and any failure."""

    def __init__(self, collector: EventCollector, model: str) -> None:
        self.collector = collector
        self.model = model
        self.thread_id: str | None = None
        self.failure: str | None = None
        self.notes: list[str] = []
        self.completed = False
        self._texts: list[str] = []
        self._open: set[str] = set()

    def is_tool_start(self, event: dict[str, Any]) -> bool:
        item = event.get("item") or {}
        return event.get("type") == "item.started" and item.get("type") in TOOL_ITEMS

    def feed(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        item = event.get("item") or {}
        if kind == "thread.started":
            self.thread_id = event.get("thread_id") or self.thread_id
        elif kind == "turn.started":
            self.collector(TurnStartEvent(index=self.collector.inner_turns + 1))
        elif kind in ("item.started", "item.updated", "item.completed"):
            self._item(kind, item)
        elif kind == "turn.completed":
            self.completed = True
            usage = usage_from(event.get("usage"))
            self.collector(AssistantMessageEvent(content="".join(self._texts), model=self.model, usage=usage))
            self.collector(TotalEvent(usage=usage, model=self.model))
        elif kind == "turn.failed":
            self.failure = str((event.get("error") or {}).get("message") or "the turn failed")
        elif kind == "error":
            self.notes.append(str(event.get("message") or ""))

    def _item(self, kind: str, item: dict[str, Any]) -> None:
        item_id = str(item.get("id") or "")
        if item.get("type") in TOOL_ITEMS:
            if item_id not in self._open and kind != "item.updated":
                self._open.add(item_id)
                name, params = _tool(item)
                self.collector(ToolStartEvent(tool_use_id=item_id, tool_name=name, parameters=params))
            if kind == "item.completed":
                self._open.discard(item_id)
                self.collector(ToolEndEvent(tool_use_id=item_id, status=_status(item), result_summary=_summary(item)))
        elif kind == "item.completed" and item.get("type") == "agent_message":
            text = str(item.get("text") or "")
            self._texts.append(text)
            self.collector(TextChunkEvent(text=text))
        elif kind == "item.completed" and item.get("type") == "error":
            self.notes.append(str(item.get("message") or ""))
