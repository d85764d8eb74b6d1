"""The Anthropic Messages API as agents speak it (Claude Code, the anthropic SDK).

Parses `POST /v1/messages` into a neutral ModelRequest and renders a ModelReply
back as the real API would: one JSON message, or the SSE event sequence
message_start → content blocks → message_delta → message_stop. It also answers
`POST /v1/messages/count_tokens` locally with a deterministic estimate, and reads
token usage out of upstream responses for the proxying modes.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, ClassVar

from aiohttp import web

from coder_eval.gateway.protocol import WireProtocol, register_protocol
from coder_eval.gateway.types import (
    GatewayError,
    Message,
    ModelReply,
    ModelRequest,
    StopReason,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)
from coder_eval.gateway.wire import dumps

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
TEXT_CHUNK = 48
"""Characters per `text_delta`: small enough that clients see a real stream, deterministic."""

# The error type the real API uses for each status, when the caller gave only a generic kind.
_KIND_BY_STATUS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _text_of(content: Any) -> str:
    """The text of a string or of a list of blocks (text blocks only; images and others are skipped)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(p for p in parts if isinstance(p, str) and p)


def _parse_message(index: int, raw: Any) -> Message:
    """One conversation entry; tool_use blocks become calls, tool_result blocks results."""
    if not isinstance(raw, dict) or raw.get("role") not in ("user", "assistant"):
        raise GatewayError(
            400, f"messages.{index}: expected an object with role 'user' or 'assistant'", "invalid_request_error"
        )
    content = raw.get("content", "")
    message = Message(role=raw["role"])
    if isinstance(content, str):
        message.text = content
        return message
    if not isinstance(content, list):
        raise GatewayError(
            400, f"messages.{index}.content: expected a string or a list of blocks", "invalid_request_error"
        )
    message.text = _text_of(content)
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            args = block.get("input")
            message.tool_calls.append(
                ToolCall(str(block.get("id", "")), str(block.get("name", "")), args if isinstance(args, dict) else {})
            )
        elif block.get("type") == "tool_result":
            message.tool_results.append(
                ToolResult(
                    str(block.get("tool_use_id", "")),
                    _text_of(block.get("content", "")),
                    bool(block.get("is_error", False)),
                )
            )
    return message


def _parse_tools(raw: Any) -> list[ToolSpec]:
    """Client tools; server tools (web_search, bash_20250124, ...) carry no input_schema and are skipped."""
    if not isinstance(raw, list):
        return []
    tools = []
    for tool in raw:
        if isinstance(tool, dict) and isinstance(tool.get("input_schema"), dict) and tool.get("name"):
            tools.append(ToolSpec(str(tool["name"]), str(tool.get("description") or ""), tool["input_schema"]))
    return tools


def _message_id(request: ModelRequest, reply: ModelReply) -> str:
    """A deterministic id, so the same request and reply always render the same bytes."""
    seed = dumps(request.raw) + "\0" + reply.text + "\0" + dumps([c.id for c in reply.tool_calls])
    return "msg_" + hashlib.sha256(seed.encode()).hexdigest()[:24]


def _stop_reason(reply: ModelReply) -> StopReason:
    """The reply's stop reason; a reply carrying tool calls stops for tool use unless it was cut off."""
    if reply.tool_calls and reply.stop_reason != "max_tokens":
        return "tool_use"
    return reply.stop_reason


def _content_blocks(reply: ModelReply) -> list[dict[str, Any]]:
    """Text first, then tool_use blocks; a reply with neither still gets one (empty) text block."""
    blocks: list[dict[str, Any]] = []
    if reply.text or not reply.tool_calls:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    return blocks


def _usage_json(usage: Usage) -> dict[str, int]:
    """The API's usage object for a Usage."""
    return {
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "output_tokens": usage.output_tokens,
    }


def render_message(request: ModelRequest, reply: ModelReply) -> dict[str, Any]:
    """The non-streaming response body."""
    return {
        "id": _message_id(request, reply),
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": _content_blocks(reply),
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": _usage_json(reply.usage),
    }


def _sse(event: str, data: dict[str, Any]) -> bytes:
    """One SSE event: its name line and its JSON data line."""
    return f"event: {event}\ndata: {dumps(data)}\n\n".encode()


def _block_events(index: int, block: dict[str, Any]) -> list[bytes]:
    """content_block_start / deltas / content_block_stop for one block."""
    start: dict[str, Any]
    if block["type"] == "text":
        text: str = block["text"]
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": text[i : i + TEXT_CHUNK]} for i in range(0, len(text), TEXT_CHUNK)]
    else:
        # The real API opens a tool_use block with empty input and sends the arguments as JSON text.
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        deltas = [{"type": "input_json_delta", "partial_json": dumps(block["input"])}]
    events = [_sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})]
    events += [_sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def render_events(request: ModelRequest, reply: ModelReply) -> list[bytes]:
    """The SSE events of a streamed response, in the real API's order, one bytes item per event."""
    message = render_message(request, reply)
    start_usage = {**message["usage"], "output_tokens": 1}
    head = {**message, "content": [], "stop_reason": None, "usage": start_usage}
    events = [_sse("message_start", {"type": "message_start", "message": head}), _sse("ping", {"type": "ping"})]
    for index, block in enumerate(message["content"]):
        events += _block_events(index, block)
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": reply.usage.output_tokens},
    }
    events += [_sse("message_delta", delta), _sse("message_stop", {"type": "message_stop"})]
    return events


def iter_sse_data(body: bytes) -> list[dict[str, Any]]:
    """The JSON payloads of the `data:` lines of an SSE body (unreadable lines skipped)."""
    payloads = []
    for line in body.decode("utf-8", errors="replace").splitlines():
        if not line.startswith("data:"):
            continue
        try:
            data = json.loads(line[5:].strip())
        except ValueError:
            continue
        if isinstance(data, dict):
            payloads.append(data)
    return payloads


def _merge_usage(into: dict[str, int], raw: Any) -> None:
    """Overlay the integer buckets present in `raw` (later events carry cumulative counts)."""
    if isinstance(raw, dict):
        for key in _USAGE_KEYS:
            value = raw.get(key)
            if isinstance(value, int):
                into[key] = value


def _usage_of(buckets: dict[str, int]) -> Usage:
    """A Usage from the API's bucket names (missing buckets are 0)."""
    return Usage(
        input_tokens=buckets.get("input_tokens", 0),
        output_tokens=buckets.get("output_tokens", 0),
        cache_creation_input_tokens=buckets.get("cache_creation_input_tokens", 0),
        cache_read_input_tokens=buckets.get("cache_read_input_tokens", 0),
    )


def count_tokens_estimate(body: dict[str, Any]) -> int:
    """A deterministic stand-in for the token counter: one token per four characters of JSON."""
    return max(1, len(json.dumps(body)) // 4)


@register_protocol
class AnthropicMessages(WireProtocol):
    """POST /v1/messages (streaming or not) and /v1/messages/count_tokens."""

    name: ClassVar[str] = "anthropic"
    upstream: ClassVar[str] = ""  # served by the provider profiles (models/builtin_providers.yaml)
    upstream_var: ClassVar[str] = "CODER_EVAL_UPSTREAM_ANTHROPIC"
    api_key_var: ClassVar[str] = "ANTHROPIC_API_KEY"
    paths: ClassVar[tuple[str, ...]] = (re.escape(MESSAGES_PATH), re.escape(COUNT_TOKENS_PATH))

    def parse(self, path: str, query: dict[str, str], body: dict[str, Any]) -> ModelRequest:
        """The neutral request; 400 when `messages` is missing or malformed."""
        raw_messages = body.get("messages")
        if not isinstance(raw_messages, list):
            raise GatewayError(400, "messages: expected a list", "invalid_request_error")
        max_tokens = body.get("max_tokens")
        # Recent Claude Code versions also send mid-conversation `system` entries; they are
        # instructions, not turns, so they join the system text.
        inline_system = [
            _text_of(m.get("content")) for m in raw_messages if isinstance(m, dict) and m.get("role") == "system"
        ]
        turns = [(i, m) for i, m in enumerate(raw_messages) if not (isinstance(m, dict) and m.get("role") == "system")]
        system = "\n\n".join(t for t in [_text_of(body.get("system", "")), *inline_system] if t)
        return ModelRequest(
            protocol=self.name,
            model=str(body.get("model") or ""),
            messages=[_parse_message(i, m) for i, m in turns],
            tools=_parse_tools(body.get("tools")),
            system=system,
            stream=bool(body.get("stream", False)),
            max_tokens=max_tokens if isinstance(max_tokens, int) else None,
            raw=body,
        )

    def local_response(self, path: str, body: dict[str, Any]) -> web.Response | None:
        """Answer count_tokens without a model call (deterministic estimate); None for everything else."""
        if path != COUNT_TOKENS_PATH:
            return None
        return web.json_response({"input_tokens": count_tokens_estimate(body)})

    def render_body(self, request: ModelRequest, reply: ModelReply) -> dict[str, Any] | None:
        return render_message(request, reply)

    async def respond(self, http: web.Request, request: ModelRequest, reply: ModelReply) -> web.StreamResponse:
        """One JSON message, or the SSE event stream when the request asked for `stream`."""
        if not request.stream:
            return web.json_response(render_message(request, reply))
        response = web.StreamResponse(
            status=200, headers={"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}
        )
        await response.prepare(http)
        for event in render_events(request, reply):
            await response.write(event)
        await response.write_eof()
        return response

    def error(self, err: GatewayError) -> web.Response:
        """`{"type": "error", "error": {...}}` with the error's status; generic kinds take the status's type."""
        kind = err.kind
        if kind == "api_error":
            kind = _KIND_BY_STATUS.get(err.status, kind)
        body = {"type": "error", "error": {"type": kind, "message": err.message}}
        return web.json_response(body, status=err.status)

    def usage_from_response(self, body: bytes, *, streamed: bool) -> tuple[Usage, str | None]:
        """Usage and model of a JSON message or an SSE stream (message_start, then message_delta overlays)."""
        buckets: dict[str, int] = {}
        model: str | None = None
        if streamed:
            for event in iter_sse_data(body):
                if event.get("type") == "message_start" and isinstance(event.get("message"), dict):
                    _merge_usage(buckets, event["message"].get("usage"))
                    model = event["message"].get("model") or model
                elif event.get("type") == "message_delta":
                    _merge_usage(buckets, event.get("usage"))
            return _usage_of(buckets), model
        try:
            data = json.loads(body)
        except ValueError:
            return Usage(), None
        if not isinstance(data, dict) or data.get("type") == "error":
            return Usage(), None
        _merge_usage(buckets, data.get("usage"))
        found = data.get("model")
        return _usage_of(buckets), found if isinstance(found, str) else None

    def upstream_headers(self, headers: dict[str, str], api_key: str | None) -> dict[str, str]:
        """With a configured key, replace whatever credential the agent sent by `x-api-key`."""
        if api_key is None:
            return headers
        kept = {k: v for k, v in headers.items() if k.lower() not in ("x-api-key", "authorization")}
        kept["x-api-key"] = api_key
        return kept
