"""Helpers the wire protocols share: JSON odds and ends, building a neutral conversation,
cutting text into stream pieces, server-sent events, and OpenAI's usage and error shapes
(Chat Completions and Responses both use them)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from aiohttp import web

from coder_eval.gateway.types import GatewayError, Message, ToolCall, ToolResult, Usage

# --------------------------------------------------------------------------- values and text


def dumps(obj: Any) -> str:
    """Compact JSON, as the providers send it."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def new_id(prefix: str) -> str:
    """A fresh provider-style identifier such as `chatcmpl-3f2a…`."""
    return f"{prefix}{uuid.uuid4().hex}"


def int_or_none(value: Any) -> int | None:
    """`value` as an int when it is a whole number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def as_int(value: Any) -> int:
    """`value` as an int, 0 when it is missing or not a number."""
    number = int_or_none(value)
    return number if number is not None else 0


def str_or_none(value: Any) -> str | None:
    """`value` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty dict."""
    return value if isinstance(value, dict) else {}


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments from a JSON string (or object); a non-object is kept under `_raw`."""
    if isinstance(raw, dict):
        return raw
    if raw is None or raw == "":
        return {}
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        return {"_raw": raw}
    return value if isinstance(value, dict) else {"_raw": raw}


def text_pieces(text: str, size: int = 24) -> list[str]:
    """`text` cut at word boundaries into stream deltas of about `size` characters (joined, they are `text`)."""
    pieces: list[str] = []
    current = ""
    for word in re.findall(r"\S+\s*|\s+", text):
        current += word
        if len(current) >= size:
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces


def string_pieces(text: str, size: int = 64) -> list[str]:
    """`text` cut into fixed-size pieces (for streamed tool-call arguments)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def add_user_text(messages: list[Message], text: str) -> None:
    """Append user text, merging into a trailing user entry (tool results and text share one turn)."""
    if not text:
        return
    last = messages[-1] if messages else None
    if last is not None and last.role == "user":
        last.text = f"{last.text}\n{text}" if last.text else text
    else:
        messages.append(Message(role="user", text=text))


def add_tool_result(messages: list[Message], result: ToolResult) -> None:
    """Append a tool result to the trailing user entry, opening one when needed."""
    last = messages[-1] if messages else None
    if last is None or last.role != "user":
        last = Message(role="user")
        messages.append(last)
    last.tool_results.append(result)


def add_assistant(messages: list[Message], text: str = "", calls: Iterable[ToolCall] = ()) -> None:
    """Append assistant text and tool calls, merging into a trailing assistant entry."""
    last = messages[-1] if messages else None
    if last is None or last.role != "assistant":
        last = Message(role="assistant")
        messages.append(last)
    if text:
        last.text = f"{last.text}\n{text}" if last.text else text
    last.tool_calls.extend(calls)


def parts_text(content: Any) -> str:
    """Text of an OpenAI message content: a string, or a list of text parts (other parts are skipped)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)]
    return "\n".join(texts)


def replace_header(headers: Mapping[str, str], name: str, value: str, *, drop: Iterable[str] = ()) -> dict[str, str]:
    """A copy of `headers` with `name` set to `value` and `drop` removed, case-insensitively."""
    gone = {name.lower(), *(d.lower() for d in drop)}
    out = {k: v for k, v in headers.items() if k.lower() not in gone}
    out[name] = value
    return out


def sse_lines(body: bytes) -> list[tuple[str, str]]:
    """The (event, data) pairs of a server-sent event stream."""
    events: list[tuple[str, str]] = []
    event, data = "", list[str]()
    for line in body.decode("utf-8", "replace").splitlines():
        if not line.strip():
            if data:
                events.append((event, "\n".join(data)))
            event, data = "", []
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        events.append((event, "\n".join(data)))
    return events


def sse_json(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The (event, JSON object) pairs of a server-sent event stream; non-JSON data ([DONE]) is skipped."""
    out: list[tuple[str, dict[str, Any]]] = []
    for event, data in sse_lines(body):
        try:
            value = json.loads(data)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append((event, value))
    return out


def load_json(body: bytes) -> Any:
    """`body` parsed as JSON, None when it is not JSON."""
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


async def open_sse(http: web.Request, headers: Mapping[str, str] | None = None) -> web.StreamResponse:
    """Start a 200 `text/event-stream` response."""
    resp = web.StreamResponse(
        status=200,
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **(headers or {})},
    )
    await resp.prepare(http)
    return resp


async def send_sse(
    http: web.Request, frames: Iterable[str], headers: Mapping[str, str] | None = None
) -> web.StreamResponse:
    """Stream already-formatted SSE frames and finish the response."""
    resp = await open_sse(http, headers)
    for frame in frames:
        await resp.write(frame.encode("utf-8"))
    await resp.write_eof()
    return resp


def overload_status(status: int) -> int:
    """Anthropic's 529 (overloaded) as the 503 the OpenAI and Gemini APIs use; other statuses unchanged."""
    return 503 if status == 529 else status


# --------------------------------------------------------------------------- OpenAI usage and errors


def openai_usage_numbers(usage: Usage) -> tuple[int, int, int]:
    """(prompt tokens, cached tokens, completion tokens) of a neutral usage, OpenAI-style (prompt includes cache)."""
    prompt = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    return prompt, usage.cache_read_input_tokens, usage.output_tokens


def openai_usage(prompt: int, completion: int, details_in: Mapping[str, Any], details_out: Mapping[str, Any]) -> Usage:
    """The neutral usage of OpenAI numbers: uncached input = prompt − cached − cache writes."""
    cached = as_int(details_in.get("cached_tokens"))
    written = as_int(details_in.get("cache_write_tokens"))
    return Usage(
        input_tokens=max(prompt - cached - written, 0),
        output_tokens=completion,
        cache_creation_input_tokens=written,
        cache_read_input_tokens=cached,
        reasoning_tokens=as_int(details_out.get("reasoning_tokens")),
    )


_OPENAI_ERRORS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", None),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", "server_overloaded"),
}


def openai_error(err: GatewayError) -> web.Response:
    """OpenAI's error body `{"error": {message, type, param, code}}` for `err` (529 answers as 503)."""
    status = overload_status(err.status)
    kind, code = _OPENAI_ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    if err.kind == "insufficient_quota":
        kind, code = "insufficient_quota", "insufficient_quota"
    body = {"error": {"message": err.message, "type": kind, "param": None, "code": code}}
    return web.Response(
        status=status,
        text=dumps(body),
        content_type="application/json",
        headers={"x-request-id": new_id("req_")},
    )


def bearer_headers(headers: Mapping[str, str], api_key: str | None) -> dict[str, str]:
    """Forwarded headers with `Authorization: Bearer <api_key>` when a key is configured."""
    if not api_key:
        return dict(headers)
    return replace_header(headers, "Authorization", f"Bearer {api_key}")
