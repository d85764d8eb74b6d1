"""OpenAI Responses (`POST /v1/responses`) as a gateway wire protocol — the API the Codex CLI speaks.

Replies render as a `response` object; streamed, as the typed event sequence of the
real API (response.created … response.completed, each with a `sequence_number`),
so the official SDK's stream accumulator and Codex both accept it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
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

_FINAL_EVENTS = ("response.completed", "response.incomplete", "response.failed")

# --------------------------------------------------------------------------- parsing


def parse_input(raw: Any) -> tuple[list[str], list[Message]]:
    """System texts (system/developer messages) and neutral conversation of a Responses `input`."""
    if isinstance(raw, str):
        return [], [Message(role="user", text=raw)]
    if not isinstance(raw, list):
        raise GatewayError(400, "'input' must be a string or a list of items", "invalid_request_error")
    system: list[str] = []
    messages: list[Message] = []
    for item in raw:
        if not isinstance(item, dict):
            raise GatewayError(400, "each entry of 'input' must be an object", "invalid_request_error")
        _parse_item(item, system, messages)
    return system, messages


def _parse_item(item: dict[str, Any], system: list[str], messages: list[Message]) -> None:
    """Add one input item to the conversation (reasoning, web-search and unknown items are skipped)."""
    kind = str(item.get("type") or ("message" if "role" in item else ""))
    if kind == "message":
        role, text = item.get("role"), parts_text(item.get("content"))
        if role in ("system", "developer"):
            system.extend([text] if text else [])
        elif role == "assistant":
            add_assistant(messages, text)
        else:
            add_user_text(messages, text)
    elif kind.endswith("_call_output"):
        add_tool_result(messages, ToolResult(call_id=_call_id(item), content=_output_text(item.get("output"))))
    elif kind in ("function_call", "custom_tool_call") or (kind.endswith("_call") and item.get("call_id")):
        add_assistant(messages, calls=[_item_call(item, kind)])


def _item_call(item: Mapping[str, Any], kind: str) -> ToolCall:
    """The neutral call of a function_call, custom_tool_call or other client-side `*_call` item.

    Arguments: a function_call's JSON `arguments`; a custom_tool_call's `{"input": …}`;
    otherwise (local_shell_call) the item's `action`.
    """
    if kind == "function_call":
        arguments = parse_arguments(item.get("arguments"))
    elif kind == "custom_tool_call":
        arguments = {"input": item.get("input", "")}
    else:
        arguments = as_dict(item.get("action")) or parse_arguments(item.get("arguments"))
    return ToolCall(id=_call_id(item), name=str(item.get("name") or kind), arguments=arguments)


def _call_id(item: Mapping[str, Any]) -> str:
    """The call id an item refers to (`call_id`, else its `id`)."""
    return str(item.get("call_id") or item.get("id") or "")


def _output_text(output: Any) -> str:
    """Text of a function_call_output `output`: a string, or a list of input_text parts."""
    return output if isinstance(output, str) else parts_text(output) if isinstance(output, list) else dumps(output)


def parse_tools(raw: Any) -> list[ToolSpec]:
    """Function and custom (freeform) tools of a Responses `tools` list; built-in tools are ignored.

    A custom tool takes one free-text input (Codex's `apply_patch`), so it becomes a
    tool with a single string parameter `input`; replies calling it render as
    `custom_tool_call` items.
    """
    specs: list[ToolSpec] = []
    for entry in raw if isinstance(raw, list) else []:
        tool = as_dict(entry)
        name, kind = tool.get("name"), tool.get("type")
        if not name or kind not in ("function", "custom"):
            continue
        schema = as_dict(tool.get("parameters")) if kind == "function" else _custom_schema(tool)
        specs.append(ToolSpec(name=str(name), description=str(tool.get("description") or ""), input_schema=schema))
    return specs


def _custom_schema(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The one-string-parameter schema standing for a custom tool (its format kept under `x-format`)."""
    return {
        "type": "object",
        "properties": {"input": {"type": "string", "description": "The tool's free-form input."}},
        "required": ["input"],
        "x-format": as_dict(tool.get("format")),
    }


def custom_tool_names(raw: Any) -> frozenset[str]:
    """Names of the custom (freeform) tools in a Responses `tools` list."""
    tools = [as_dict(t) for t in raw] if isinstance(raw, list) else []
    return frozenset(str(t["name"]) for t in tools if t.get("type") == "custom" and t.get("name"))


# --------------------------------------------------------------------------- rendering


def responses_usage(usage: Usage) -> dict[str, Any]:
    """The Responses `usage` object of a neutral usage."""
    prompt, cached, completion = openai_usage_numbers(usage)
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": usage.cache_creation_input_tokens},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": prompt + completion,
    }


def usage_from_responses(raw: Mapping[str, Any]) -> Usage:
    """The neutral usage of a Responses `usage` object."""
    return openai_usage(
        as_int(raw.get("input_tokens")),
        as_int(raw.get("output_tokens")),
        as_dict(raw.get("input_tokens_details")),
        as_dict(raw.get("output_tokens_details")),
    )


@dataclass
class ResponseDraft:
    """Everything one rendered response needs: ids, timing, the reply and the request it echoes."""

    request: ModelRequest
    reply: ModelReply
    response_id: str = field(default_factory=lambda: new_id("resp_"))
    created_at: int = field(default_factory=lambda: int(time.time()))
    message_id: str = field(default_factory=lambda: new_id("msg_"))
    call_item_ids: list[str] = field(default_factory=list)
    custom_tools: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.custom_tools = custom_tool_names(self.request.raw.get("tools"))
        if not self.call_item_ids:
            self.call_item_ids = [
                new_id("ctc_" if self.is_custom(i) else "fc_") for i in range(len(self.reply.tool_calls))
            ]

    def is_custom(self, index: int) -> bool:
        """Whether the reply's `index`th tool call targets a custom (freeform) tool."""
        return self.reply.tool_calls[index].name in self.custom_tools

    @property
    def incomplete(self) -> bool:
        """Whether the reply stopped at the output-token limit (status `incomplete`)."""
        return self.reply.stop_reason == "max_tokens"

    @property
    def has_message(self) -> bool:
        """Whether the output carries a message item (any text, or no tool call at all)."""
        return bool(self.reply.text) or not self.reply.tool_calls

    @property
    def item_status(self) -> str:
        """Status of the finished output items."""
        return "incomplete" if self.incomplete else "completed"


def text_part(text: str) -> dict[str, Any]:
    """An `output_text` content part."""
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def message_item(draft: ResponseDraft, *, done: bool) -> dict[str, Any]:
    """The assistant `message` output item, finished (`done`) or as first announced."""
    return {
        "id": draft.message_id,
        "type": "message",
        "status": draft.item_status if done else "in_progress",
        "content": [text_part(draft.reply.text)] if done else [],
        "role": "assistant",
    }


def call_item(draft: ResponseDraft, index: int, *, done: bool) -> dict[str, Any]:
    """The output item of the reply's `index`th tool call: `function_call`, or `custom_tool_call` for custom tools."""
    call = draft.reply.tool_calls[index]
    status = draft.item_status if done else "in_progress"
    item: dict[str, Any] = {"id": draft.call_item_ids[index], "type": "function_call", "status": status}
    if draft.is_custom(index):
        item.update(type="custom_tool_call", input=custom_input(call) if done else "")
    else:
        item["arguments"] = dumps(call.arguments) if done else ""
    return {**item, "call_id": call.id, "name": call.name}


def custom_input(call: ToolCall) -> str:
    """The free-text input of a custom tool call: its `input` argument, else its arguments as JSON."""
    value = call.arguments.get("input")
    return value if isinstance(value, str) else dumps(call.arguments)


def output_items(draft: ResponseDraft) -> list[dict[str, Any]]:
    """The finished output items: the message (unless the reply is only tool calls), then the function calls."""
    items = [message_item(draft, done=True)] if draft.has_message else []
    return items + [call_item(draft, i, done=True) for i in range(len(draft.reply.tool_calls))]


def response_object(draft: ResponseDraft, *, final: bool) -> dict[str, Any]:
    """The `response` object: in progress (no output, no usage) or final, echoing the request's settings."""
    raw = draft.request.raw
    status = ("incomplete" if draft.incomplete else "completed") if final else "in_progress"
    return {
        "id": draft.response_id,
        "object": "response",
        "created_at": draft.created_at,
        "status": status,
        "background": False,
        "completed_at": int(time.time()) if final and not draft.incomplete else None,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if final and draft.incomplete else None,
        "instructions": raw.get("instructions"),
        "max_output_tokens": raw.get("max_output_tokens"),
        "max_tool_calls": raw.get("max_tool_calls"),
        "model": draft.reply.model or draft.request.model,
        "output": output_items(draft) if final else [],
        "parallel_tool_calls": raw.get("parallel_tool_calls", True),
        "previous_response_id": raw.get("previous_response_id"),
        "prompt_cache_key": raw.get("prompt_cache_key"),
        "reasoning": raw.get("reasoning") or {"effort": None, "summary": None},
        "service_tier": "default",
        "store": raw.get("store", True),
        "temperature": raw.get("temperature", 1.0),
        "text": raw.get("text") or {"format": {"type": "text"}},
        "tool_choice": raw.get("tool_choice", "auto"),
        "tools": raw.get("tools") or [],
        "top_p": raw.get("top_p", 1.0),
        "truncation": raw.get("truncation", "disabled"),
        "usage": responses_usage(draft.reply.usage) if final else None,
        "user": raw.get("user"),
        "metadata": raw.get("metadata") or {},
    }


def _message_events(draft: ResponseDraft, index: int) -> list[dict[str, Any]]:
    """Events streaming the text message at output index `index`."""
    text, item_id = draft.reply.text, draft.message_id
    where = {"item_id": item_id, "output_index": index, "content_index": 0}
    return [
        {"type": "response.output_item.added", "output_index": index, "item": message_item(draft, done=False)},
        {"type": "response.content_part.added", **where, "part": text_part("")},
        *({"type": "response.output_text.delta", **where, "delta": d, "logprobs": []} for d in text_pieces(text)),
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": text_part(text)},
        {"type": "response.output_item.done", "output_index": index, "item": message_item(draft, done=True)},
    ]


def _call_events(draft: ResponseDraft, call: int, index: int) -> list[dict[str, Any]]:
    """Events streaming tool call number `call` at output index `index` (arguments, or custom input, in pieces)."""
    item_id = draft.call_item_ids[call]
    if draft.is_custom(call):
        kind, key, body = "response.custom_tool_call_input", "input", custom_input(draft.reply.tool_calls[call])
    else:
        kind, key, body = "response.function_call_arguments", "arguments", dumps(draft.reply.tool_calls[call].arguments)
    where = {"item_id": item_id, "output_index": index}
    return [
        {"type": "response.output_item.added", "output_index": index, "item": call_item(draft, call, done=False)},
        *({"type": f"{kind}.delta", **where, "delta": d} for d in string_pieces(body)),
        {"type": f"{kind}.done", **where, key: body},
        {"type": "response.output_item.done", "output_index": index, "item": call_item(draft, call, done=True)},
    ]


def response_events(draft: ResponseDraft) -> list[dict[str, Any]]:
    """The full typed event sequence streaming `draft`, numbered by `sequence_number`."""
    opening = response_object(draft, final=False)
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": opening},
        {"type": "response.in_progress", "response": opening},
    ]
    index = 0
    if draft.has_message:
        events += _message_events(draft, index)
        index += 1
    for call in range(len(draft.reply.tool_calls)):
        events += _call_events(draft, call, index)
        index += 1
    final = "response.incomplete" if draft.incomplete else "response.completed"
    events.append({"type": final, "response": response_object(draft, final=True)})
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


# --------------------------------------------------------------------------- the protocol


@register_protocol
class OpenAIResponsesProtocol(WireProtocol):
    """OpenAI Responses, a JSON `response` object or the typed SSE event stream."""

    name: ClassVar[str] = "openai_responses"
    upstream: ClassVar[str] = ""  # served by the provider profiles (models/builtin_providers.yaml)
    upstream_var: ClassVar[str] = "CODER_EVAL_UPSTREAM_OPENAI_RESPONSES"
    api_key_var: ClassVar[str] = "OPENAI_API_KEY"
    paths: ClassVar[tuple[str, ...]] = (r"(?:/v1)?/responses/*",)

    def parse(self, path: str, query: dict[str, str], body: dict[str, Any]) -> ModelRequest:
        """The neutral request of a Responses body (`instructions` and system/developer items → system)."""
        if "input" not in body:
            raise GatewayError(400, "Missing required parameter: 'input'.", "invalid_request_error")
        system, messages = parse_input(body["input"])
        instructions = body.get("instructions")
        if isinstance(instructions, str) and instructions:
            system.insert(0, instructions)
        return ModelRequest(
            protocol=self.name,
            model=str(body.get("model") or ""),
            messages=messages,
            tools=parse_tools(body.get("tools")),
            system="\n\n".join(system),
            stream=bool(body.get("stream")),
            max_tokens=int_or_none(body.get("max_output_tokens")),
            raw=body,
        )

    async def respond(self, http: web.Request, request: ModelRequest, reply: ModelReply) -> web.StreamResponse:
        """The `response` object, or its event stream when the request streams."""
        draft = ResponseDraft(request=request, reply=reply)
        headers = {"x-request-id": new_id("req_")}
        if not request.stream:
            return web.json_response(response_object(draft, final=True), headers=headers, dumps=dumps)
        frames = [f"event: {e['type']}\ndata: {dumps(e)}\n\n" for e in response_events(draft)]
        return await send_sse(http, frames, headers)

    def error(self, err: GatewayError) -> web.Response:
        """OpenAI's error body for `err`."""
        return openai_error(err)

    def usage_from_response(self, body: bytes, *, streamed: bool) -> tuple[Usage, str | None]:
        """Usage and model of a `response` body or of the stream's final response event."""
        doc = load_json(body)
        if isinstance(doc, dict):
            return usage_from_responses(as_dict(doc.get("usage"))), str_or_none(doc.get("model"))
        usage, model = Usage(), None
        for event, data in sse_json(body):
            if (data.get("type") or event) in _FINAL_EVENTS:
                response = as_dict(data.get("response"))
                usage = usage_from_responses(as_dict(response.get("usage")))
                model = str_or_none(response.get("model")) or model
        return usage, model

    def upstream_headers(self, headers: dict[str, str], api_key: str | None) -> dict[str, str]:
        """Forwarded headers carrying the key as `Authorization: Bearer`."""
        return bearer_headers(headers, api_key)
