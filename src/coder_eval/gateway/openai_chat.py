"""OpenAI Chat Completions (`POST /v1/chat/completions`) as a gateway wire protocol."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

from aiohttp import web

from coder_eval.gateway.protocol import WireProtocol, register_protocol
from coder_eval.gateway.types import (
    GatewayError,
    Message,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)
from coder_eval.gateway.wire import (
    add_assistant,
    add_tool_result,
    add_user_text,
    as_dict,
    as_int,
    bearer_headers,
    dumps,
    int_or_none,
    load_json,
    new_id,
    openai_error,
    openai_usage,
    openai_usage_numbers,
    parse_arguments,
    parts_text,
    send_sse,
    sse_json,
    str_or_none,
    string_pieces,
    text_pieces,
)

# --------------------------------------------------------------------------- Chat Completions


def parse_chat_messages(items: list[Any]) -> tuple[str, list[Message]]:
    """System text and neutral conversation of a Chat Completions `messages` list."""
    system: list[str] = []
    messages: list[Message] = []
    for item in items:
        if not isinstance(item, dict):
            raise GatewayError(400, "each entry of 'messages' must be an object", "invalid_request_error")
        role = item.get("role")
        text = parts_text(item.get("content"))
        if role in ("system", "developer"):
            if text:
                system.append(text)
        elif role == "user":
            add_user_text(messages, text)
        elif role == "assistant":
            add_assistant(messages, text, _chat_tool_calls(item.get("tool_calls")))
        elif role in ("tool", "function"):
            call_id = item.get("tool_call_id") or item.get("name") or ""
            add_tool_result(messages, ToolResult(call_id=str(call_id), content=text))
        else:
            raise GatewayError(400, f"unsupported message role {role!r}", "invalid_request_error")
    return "\n\n".join(system), messages


def _chat_tool_calls(raw: Any) -> list[ToolCall]:
    """Neutral tool calls of an assistant message's `tool_calls`."""
    calls: list[ToolCall] = []
    for entry in map(as_dict, raw if isinstance(raw, list) else []):
        fn = as_dict(entry.get("function"))
        if fn.get("name"):
            arguments = parse_arguments(fn.get("arguments"))
            calls.append(ToolCall(id=str(entry.get("id") or ""), name=str(fn["name"]), arguments=arguments))
    return calls


def parse_chat_tools(raw: Any) -> list[ToolSpec]:
    """Function tools of a Chat Completions `tools` list (other tool types are ignored)."""
    specs: list[ToolSpec] = []
    for entry in raw if isinstance(raw, list) else []:
        fn = as_dict(as_dict(entry).get("function"))
        if as_dict(entry).get("type", "function") == "function" and fn.get("name"):
            specs.append(
                ToolSpec(
                    name=str(fn["name"]),
                    description=str(fn.get("description") or ""),
                    input_schema=as_dict(fn.get("parameters")),
                )
            )
    return specs


def finish_reason(reply: ModelReply) -> str:
    """Chat `finish_reason` of a reply: length, tool_calls or stop."""
    if reply.stop_reason == "max_tokens":
        return "length"
    return "tool_calls" if reply.tool_calls else "stop"


def chat_usage(usage: Usage) -> dict[str, Any]:
    """The Chat Completions `usage` object of a neutral usage."""
    prompt, cached, completion = openai_usage_numbers(usage)
    details: dict[str, Any] = {"cached_tokens": cached, "audio_tokens": 0}
    if usage.cache_creation_input_tokens:
        details["cache_write_tokens"] = usage.cache_creation_input_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": details,
        "completion_tokens_details": {
            "reasoning_tokens": usage.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def usage_from_chat(raw: Mapping[str, Any]) -> Usage:
    """The neutral usage of a Chat Completions `usage` object."""
    return openai_usage(
        as_int(raw.get("prompt_tokens")),
        as_int(raw.get("completion_tokens")),
        as_dict(raw.get("prompt_tokens_details")),
        as_dict(raw.get("completion_tokens_details")),
    )


def chat_completion(reply: ModelReply, model: str, completion_id: str, created: int) -> dict[str, Any]:
    """The `chat.completion` object answering with `reply`."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.text or None,
        "refusal": None,
        "annotations": [],
    }
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": dumps(call.arguments)}}
            for call in reply.tool_calls
        ]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason(reply)}],
        "usage": chat_usage(reply.usage),
        "service_tier": "default",
        "system_fingerprint": None,
    }


def chat_chunks(
    reply: ModelReply, model: str, completion_id: str, created: int, *, include_usage: bool
) -> list[dict[str, Any]]:
    """The `chat.completion.chunk` objects streaming `reply`, in the order the API sends them."""
    base: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "service_tier": "default",
        "system_fingerprint": None,
    }
    if include_usage:
        base["usage"] = None

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": "", "refusal": None})]
    chunks += [chunk({"content": piece}) for piece in text_pieces(reply.text)]
    for index, call in enumerate(reply.tool_calls):
        head = {"index": index, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        chunks.append(chunk({"tool_calls": [head]}))
        chunks += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in string_pieces(dumps(call.arguments))
        ]
    chunks.append(chunk({}, finish_reason(reply)))
    if include_usage:
        chunks.append({**base, "choices": [], "usage": chat_usage(reply.usage)})
    return chunks


@register_protocol
class OpenAIChatProtocol(WireProtocol):
    """OpenAI Chat Completions, plain JSON or `stream: true` SSE ending in `data: [DONE]`."""

    name: ClassVar[str] = "openai_chat"
    upstream: ClassVar[str] = ""  # served by the provider profiles (models/builtin_providers.yaml)
    upstream_var: ClassVar[str] = "CODER_EVAL_UPSTREAM_OPENAI_CHAT"
    api_key_var: ClassVar[str] = "OPENAI_API_KEY"
    paths: ClassVar[tuple[str, ...]] = (r"(?:/v1)?/chat/completions/*",)

    def parse(self, path: str, query: dict[str, str], body: dict[str, Any]) -> ModelRequest:
        """The neutral request of a Chat Completions body."""
        items = body.get("messages")
        if not isinstance(items, list):
            raise GatewayError(400, "'messages' must be a list", "invalid_request_error")
        system, messages = parse_chat_messages(items)
        return ModelRequest(
            protocol=self.name,
            model=str(body.get("model") or ""),
            messages=messages,
            tools=parse_chat_tools(body.get("tools")),
            system=system,
            stream=bool(body.get("stream")),
            max_tokens=int_or_none(body.get("max_completion_tokens", body.get("max_tokens"))),
            raw=body,
        )

    async def respond(self, http: web.Request, request: ModelRequest, reply: ModelReply) -> web.StreamResponse:
        """A `chat.completion` JSON body, or the chunk stream when the request streams."""
        model = reply.model or request.model
        completion_id, created = new_id("chatcmpl-"), int(time.time())
        headers = {"x-request-id": new_id("req_")}
        if not request.stream:
            return web.json_response(
                chat_completion(reply, model, completion_id, created), headers=headers, dumps=dumps
            )
        include_usage = bool(as_dict(request.raw.get("stream_options")).get("include_usage"))
        chunks = chat_chunks(reply, model, completion_id, created, include_usage=include_usage)
        frames = [f"data: {dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
        return await send_sse(http, frames, headers)

    def error(self, err: GatewayError) -> web.Response:
        """OpenAI's error body for `err`."""
        return openai_error(err)

    def usage_from_response(self, body: bytes, *, streamed: bool) -> tuple[Usage, str | None]:
        """Usage and model of a `chat.completion` body or of a chunk stream (its usage chunk)."""
        doc = load_json(body)
        if isinstance(doc, dict):
            return usage_from_chat(as_dict(doc.get("usage"))), str_or_none(doc.get("model"))
        usage, model = Usage(), None
        for _, chunk in sse_json(body):
            model = str_or_none(chunk.get("model")) or model
            if isinstance(chunk.get("usage"), dict):
                usage = usage_from_chat(chunk["usage"])
        return usage, model

    def upstream_headers(self, headers: dict[str, str], api_key: str | None) -> dict[str, str]:
        """Forwarded headers carrying the key as `Authorization: Bearer`."""
        return bearer_headers(headers, api_key)
