"""Gemini `generateContent` / `streamGenerateContent` as a gateway wire protocol.

The model comes from the path (`/v1beta/models/{model}:generateContent`). Gemini
function calls usually carry no id, so parsing gives each one a stable id (its
name and position in the conversation) and matches every `functionResponse` to
the earliest unanswered call of the same name; rendered calls carry the reply's
id, which clients echo back.
"""

from __future__ import annotations

import re
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
    dumps,
    int_or_none,
    load_json,
    new_id,
    overload_status,
    replace_header,
    send_sse,
    sse_json,
    str_or_none,
    text_pieces,
)

_PATH = re.compile(
    r"^/(?:v1|v1beta|v1alpha)/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent|countTokens)$"
)

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def pick(obj: Mapping[str, Any], camel: str, snake: str) -> Any:
    """A field by its camelCase name or, as the REST API also accepts, its snake_case name."""
    return obj.get(camel, obj.get(snake))


# --------------------------------------------------------------------------- parsing


@dataclass
class _Calls:
    """Function calls seen so far, for giving ids and matching responses back to them."""

    count: int = 0
    pending: list[ToolCall] = field(default_factory=list)

    def call(self, raw: Mapping[str, Any]) -> ToolCall:
        """The neutral call of a `functionCall` part (its own id, else `<name>_<position>`)."""
        name = str(raw.get("name") or "")
        call = ToolCall(id=str(raw.get("id") or f"{name}_{self.count}"), name=name, arguments=as_dict(raw.get("args")))
        self.count += 1
        self.pending.append(call)
        return call

    def answer(self, raw: Mapping[str, Any]) -> ToolResult:
        """The neutral result of a `functionResponse` part, matched by id, else by name in call order."""
        name, given = str(raw.get("name") or ""), raw.get("id")
        match = next((c for c in self.pending if c.id == given), None) if given else None
        match = match or next((c for c in self.pending if c.name == name), None)
        if match is not None:
            self.pending.remove(match)
        call_id = match.id if match is not None else str(given or name)
        response = raw.get("response")
        return ToolResult(call_id=call_id, content=_response_text(response), is_error=_is_error(response))


def _response_text(response: Any) -> str:
    """Text of a functionResponse `response`: a lone string field (output, result, content…), else its JSON."""
    fields = as_dict(response)
    if len(fields) == 1 and isinstance(next(iter(fields.values())), str):
        return str(next(iter(fields.values())))
    return response if isinstance(response, str) else dumps(response)


def _is_error(response: Any) -> bool:
    """Whether a functionResponse reports an error (`{"error": …}`)."""
    return "error" in as_dict(response)


def parse_contents(raw: Any) -> list[Message]:
    """The neutral conversation of a Gemini `contents` list (thought parts are skipped)."""
    if not isinstance(raw, list):
        raise GatewayError(400, "'contents' must be a list", "INVALID_ARGUMENT")
    calls = _Calls()
    messages: list[Message] = []
    for content in raw:
        role = as_dict(content).get("role") or "user"
        for part in as_dict(content).get("parts") or []:
            _parse_part(as_dict(part), role, calls, messages)
    return messages


def _parse_part(part: dict[str, Any], role: str, calls: _Calls, messages: list[Message]) -> None:
    """Add one content part to the conversation."""
    text = part.get("text")
    call, response = pick(part, "functionCall", "function_call"), pick(part, "functionResponse", "function_response")
    if isinstance(text, str) and not part.get("thought"):
        if role == "model":
            add_assistant(messages, text)
        else:
            add_user_text(messages, text)
    elif isinstance(call, dict):
        add_assistant(messages, calls=[calls.call(call)])
    elif isinstance(response, dict):
        add_tool_result(messages, calls.answer(response))


def parse_system(raw: Any) -> str:
    """Text of a `systemInstruction` (a Content, or a plain string)."""
    if isinstance(raw, str):
        return raw
    parts = as_dict(raw).get("parts") or []
    return "\n".join(str(p["text"]) for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))


def parse_tools(raw: Any) -> list[ToolSpec]:
    """Function declarations of a Gemini `tools` list (built-in tools such as googleSearch are ignored)."""
    specs: list[ToolSpec] = []
    for tool in raw if isinstance(raw, list) else []:
        for decl in pick(as_dict(tool), "functionDeclarations", "function_declarations") or []:
            decl = as_dict(decl)
            schema = pick(decl, "parametersJsonSchema", "parameters_json_schema")
            if schema is None:
                schema = openapi_to_json_schema(decl.get("parameters"))
            if decl.get("name"):
                specs.append(
                    ToolSpec(
                        name=str(decl["name"]),
                        description=str(decl.get("description") or ""),
                        input_schema=as_dict(schema),
                    )
                )
    return specs


def openapi_to_json_schema(schema: Any) -> Any:
    """A Gemini (OpenAPI-subset) schema as JSON Schema: type names such as OBJECT / STRING lower-cased."""
    if isinstance(schema, list):
        return [openapi_to_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: openapi_to_json_schema(v) for k, v in schema.items()}
    if isinstance(out.get("type"), str):
        out["type"] = out["type"].lower()
    return out


# --------------------------------------------------------------------------- rendering


def gemini_usage(usage: Usage) -> dict[str, Any]:
    """`usageMetadata` of a neutral usage (prompt includes cached; candidates exclude thoughts; zeros omitted)."""
    prompt = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    thoughts = min(usage.reasoning_tokens, usage.output_tokens)
    meta: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": usage.output_tokens - thoughts,
        "totalTokenCount": prompt + usage.output_tokens,
    }
    if usage.cache_read_input_tokens:
        meta["cachedContentTokenCount"] = usage.cache_read_input_tokens
    if thoughts:
        meta["thoughtsTokenCount"] = thoughts
    meta["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
    return meta


def usage_from_gemini(meta: Mapping[str, Any]) -> Usage:
    """The neutral usage of `usageMetadata` (uncached input = prompt + tool-use prompt − cached)."""
    prompt = as_int(meta.get("promptTokenCount")) + as_int(meta.get("toolUsePromptTokenCount"))
    cached, thoughts = as_int(meta.get("cachedContentTokenCount")), as_int(meta.get("thoughtsTokenCount"))
    return Usage(
        input_tokens=max(prompt - cached, 0),
        output_tokens=as_int(meta.get("candidatesTokenCount")) + thoughts,
        cache_read_input_tokens=cached,
        reasoning_tokens=thoughts,
    )


def call_part(call: ToolCall) -> dict[str, Any]:
    """A `functionCall` part."""
    return {"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}


def finish_reason(reply: ModelReply) -> str:
    """Gemini `finishReason`: MAX_TOKENS at the output limit, else STOP (function calls included)."""
    return "MAX_TOKENS" if reply.stop_reason == "max_tokens" else "STOP"


def gemini_chunk(parts: list[dict[str, Any]], model: str, response_id: str) -> dict[str, Any]:
    """A GenerateContentResponse carrying `parts` as candidate 0, without finish reason or usage."""
    return {
        "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}],
        "modelVersion": model,
        "responseId": response_id,
    }


def _finish(chunk: dict[str, Any], reply: ModelReply) -> dict[str, Any]:
    """`chunk` made final: finish reason on its candidate, usage metadata beside it."""
    chunk["candidates"][0]["finishReason"] = finish_reason(reply)
    chunk["usageMetadata"] = gemini_usage(reply.usage)
    return chunk


def gemini_response(reply: ModelReply, model: str, response_id: str) -> dict[str, Any]:
    """The complete GenerateContentResponse answering with `reply`."""
    parts = ([{"text": reply.text}] if reply.text else []) + [call_part(c) for c in reply.tool_calls]
    return _finish(gemini_chunk(parts or [{"text": ""}], model, response_id), reply)


def gemini_chunks(reply: ModelReply, model: str, response_id: str) -> list[dict[str, Any]]:
    """The streamed GenerateContentResponse chunks: text in pieces, calls and usage in the last chunk."""
    pieces = [[{"text": piece}] for piece in text_pieces(reply.text, size=48)]
    if reply.tool_calls:
        pieces.append([call_part(c) for c in reply.tool_calls])
    pieces = pieces or [[{"text": ""}]]
    chunks = [gemini_chunk(parts, model, response_id) for parts in pieces]
    _finish(chunks[-1], reply)
    return chunks


# --------------------------------------------------------------------------- the protocol


@register_protocol
class GeminiProtocol(WireProtocol):
    """Gemini generateContent, a JSON response or (streamGenerateContent) SSE / a streamed JSON array."""

    name: ClassVar[str] = "gemini"
    upstream: ClassVar[str] = ""  # served by the provider profiles (models/builtin_providers.yaml)
    upstream_var: ClassVar[str] = "CODER_EVAL_UPSTREAM_GEMINI"
    api_key_var: ClassVar[str] = "GEMINI_API_KEY"
    paths: ClassVar[tuple[str, ...]] = (_PATH.pattern,)

    def local_response(self, path: str, body: dict[str, Any]) -> web.Response | None:
        """Answer `:countTokens` without a model call (about four characters of JSON per token)."""
        match = _PATH.match(path)
        if match is None or match["method"] != "countTokens":
            return None
        request = as_dict(pick(body, "generateContentRequest", "generate_content_request")) or body
        tokens = max(1, len(dumps(request)) // 4)
        answer = {"totalTokens": tokens, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": tokens}]}
        return web.json_response(answer, dumps=dumps)

    def parse(self, path: str, query: dict[str, str], body: dict[str, Any]) -> ModelRequest:
        """The neutral request; the model and whether to stream come from the path."""
        match = _PATH.match(path)
        if match is None or match["method"] == "countTokens":
            raise GatewayError(404, f"no Gemini model call at {path}", "NOT_FOUND")
        config = as_dict(pick(body, "generationConfig", "generation_config"))
        return ModelRequest(
            protocol=self.name,
            model=match["model"],
            messages=parse_contents(body.get("contents")),
            tools=parse_tools(body.get("tools")),
            system=parse_system(pick(body, "systemInstruction", "system_instruction")),
            stream=match["method"] == "streamGenerateContent",
            max_tokens=int_or_none(pick(config, "maxOutputTokens", "max_output_tokens")),
            raw=body,
        )

    async def respond(self, http: web.Request, request: ModelRequest, reply: ModelReply) -> web.StreamResponse:
        """The response JSON; streamed as SSE with `?alt=sse`, else as a JSON array written chunk by chunk."""
        model, response_id = reply.model or request.model, new_id("")[:22]
        if not request.stream:
            return web.json_response(gemini_response(reply, model, response_id), dumps=dumps)
        chunks = gemini_chunks(reply, model, response_id)
        if http.query.get("alt") == "sse":
            return await send_sse(http, [f"data: {dumps(c)}\r\n\r\n" for c in chunks])
        resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json; charset=UTF-8"})
        await resp.prepare(http)
        for n, chunk in enumerate(chunks):
            await resp.write(f"{',' if n else '['}\r\n{dumps(chunk)}".encode())
        await resp.write(b"]")
        await resp.write_eof()
        return resp

    def error(self, err: GatewayError) -> web.Response:
        """Google's error body `{"error": {code, message, status}}` (529 answers as 503 UNAVAILABLE)."""
        status = overload_status(err.status)
        name = _STATUS_NAMES.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
        body = {"error": {"code": status, "message": err.message, "status": name}}
        return web.Response(status=status, text=dumps(body), content_type="application/json")

    def usage_from_response(self, body: bytes, *, streamed: bool) -> tuple[Usage, str | None]:
        """Usage and model of a response, a streamed JSON array or an SSE stream (the last usageMetadata)."""
        doc = load_json(body)
        chunks = doc if isinstance(doc, list) else [doc] if isinstance(doc, dict) else [c for _, c in sse_json(body)]
        usage, model = Usage(), None
        for chunk in chunks:
            meta = as_dict(chunk).get("usageMetadata")
            if isinstance(meta, dict):
                usage = usage_from_gemini(meta)
            model = str_or_none(as_dict(chunk).get("modelVersion")) or model
        return usage, model

    def upstream_headers(self, headers: dict[str, str], api_key: str | None) -> dict[str, str]:
        """Forwarded headers carrying the key as `x-goog-api-key` (any Authorization header dropped)."""
        if not api_key:
            return dict(headers)
        return replace_header(headers, "x-goog-api-key", api_key, drop=("authorization",))
