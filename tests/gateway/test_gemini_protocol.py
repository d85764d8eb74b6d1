"""Gemini generateContent wire protocol: parsing, rendering, and the official google-genai client."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from protocol_harness import ListSource, buckets, recorded_buckets, scripted_server

from coder_eval.gateway.gemini import (
    GeminiProtocol,
    gemini_chunks,
    gemini_response,
    gemini_usage,
    openapi_to_json_schema,
    usage_from_gemini,
)
from coder_eval.gateway.protocol import protocol_for
from coder_eval.gateway.server import GatewayThread
from coder_eval.gateway.types import GatewayError, ModelReply, ToolCall, ToolResult, Usage

pytestmark = pytest.mark.timeout(60)

GEMINI = GeminiProtocol()
USAGE = Usage(input_tokens=80, output_tokens=50, cache_read_input_tokens=20, reasoning_tokens=12)
WRITE = ToolCall(id="call_w1", name="write_file", arguments={"path": "a.txt", "content": "hello\nworld"})
TOOL_REPLY = ModelReply(tool_calls=[WRITE], usage=USAGE, stop_reason="tool_use", model="gemini-test")
TEXT = "All done: the file is written. The tests pass, and nothing else needed changing."
TEXT_REPLY = ModelReply(text=TEXT, usage=USAGE, model="gemini-test")
SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
}
PATH = "/v1beta/models/gemini-2.5-pro:generateContent"


def client(url: str) -> genai.Client:
    options = types.HttpOptions(base_url=f"{url}/t/tok-9", api_version="v1beta", timeout=10_000)
    return genai.Client(api_key="dummy", http_options=options)


def tool_config() -> types.GenerateContentConfig:
    declaration = types.FunctionDeclaration(name="write_file", description="Write", parameters_json_schema=SCHEMA)
    return types.GenerateContentConfig(
        system_instruction="You write files.",
        tools=[types.Tool(function_declarations=[declaration])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )


# --------------------------------------------------------------------------- routing, parse, render


@pytest.mark.parametrize(
    ("method", "path", "owned"),
    [
        ("POST", "/v1beta/models/gemini-2.5-pro:generateContent", True),
        ("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", True),
        ("POST", "/v1/models/gemini-2.5-pro:generateContent", True),
        ("POST", "/v1beta/models/gemini-2.5-pro:countTokens", True),
        ("POST", "/v1beta/models/gemini-2.5-pro:embedContent", False),
        ("GET", "/v1beta/models/gemini-2.5-pro:generateContent", False),
        ("POST", "/v1/chat/completions", False),
    ],
)
def test_owns(method: str, path: str, owned: bool) -> None:
    assert GEMINI.owns(method, path) is owned
    if owned:
        assert type(protocol_for(method, path)) is GeminiProtocol


def test_parse_conversation_with_synthesized_ids() -> None:
    body: dict[str, Any] = {
        "systemInstruction": {"parts": [{"text": "Be terse."}, {"text": "Use tools."}]},
        "generationConfig": {"maxOutputTokens": 256},
        "contents": [
            {"role": "user", "parts": [{"text": "write two files"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "thinking…", "thought": True},
                    {"text": "Sure."},
                    {"functionCall": {"name": "write_file", "args": {"path": "a"}}},
                    {"functionCall": {"name": "write_file", "args": {"path": "b"}}},
                    {"functionCall": {"name": "run", "args": {}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "run", "response": {"error": "exit 1"}}},
                    {"functionResponse": {"name": "write_file", "response": {"output": "wrote a"}}},
                    {"functionResponse": {"name": "write_file", "response": {"output": "wrote b", "bytes": 3}}},
                ],
            },
        ],
        "tools": [
            {"functionDeclarations": [{"name": "write_file", "description": "W", "parametersJsonSchema": SCHEMA}]},
            {"function_declarations": [{"name": "run", "parameters": {"type": "OBJECT", "properties": {}}}]},
            {"googleSearch": {}},
        ],
    }
    req = GEMINI.parse("/v1beta/models/gemini-2.5-pro:streamGenerateContent", {"alt": "sse"}, body)
    assert req.protocol == "gemini" and req.model == "gemini-2.5-pro" and req.stream and req.max_tokens == 256
    assert req.system == "Be terse.\nUse tools."
    assert [m.role for m in req.messages] == ["user", "assistant", "user"]
    assert req.messages[1].text == "Sure."
    assert [c.id for c in req.messages[1].tool_calls] == ["write_file_0", "write_file_1", "run_2"]
    assert req.tool_results == [
        ToolResult("run_2", "exit 1", is_error=True),
        ToolResult("write_file_0", "wrote a"),
        ToolResult("write_file_1", '{"output":"wrote b","bytes":3}'),
    ]
    assert [t.name for t in req.tools] == ["write_file", "run"]
    assert req.tools[1].input_schema == {"type": "object", "properties": {}}
    # ids are stable: parsing the same body again gives the same ids
    again = GEMINI.parse(PATH, {}, body)
    assert again.messages[1].tool_calls == req.messages[1].tool_calls and not again.stream


def test_parse_prefers_explicit_ids() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "call_x", "name": "run", "args": {"c": "ls"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "run", "response": {"result": "a.txt"}}}]},
        ]
    }
    req = GEMINI.parse(PATH, {}, body)
    assert req.messages[1].tool_calls == [ToolCall("call_x", "run", {"c": "ls"})]
    assert req.tool_results == [ToolResult("call_x", "a.txt")]


def test_parse_rejects_missing_contents() -> None:
    with pytest.raises(GatewayError) as err:
        GEMINI.parse(PATH, {}, {})
    assert err.value.status == 400
    with pytest.raises(GatewayError):
        GEMINI.parse("/v1beta/models/m:countTokens", {}, {"contents": []})


def test_count_tokens_is_answered_locally() -> None:
    assert GEMINI.local_response(PATH, {"contents": []}) is None
    answer = GEMINI.local_response("/v1beta/models/m:countTokens", {"contents": [{"parts": [{"text": "x" * 400}]}]})
    assert answer is not None and answer.text is not None
    assert json.loads(answer.text)["totalTokens"] > 100


def test_openapi_schema_types_lowercased() -> None:
    items = {"type": "ARRAY", "items": {"type": "STRING"}}
    schema = {"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}, "xs": items}}
    assert openapi_to_json_schema(schema) == {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "xs": {"type": "array", "items": {"type": "string"}}},
    }


def test_usage_round_trip() -> None:
    meta = gemini_usage(USAGE)
    assert meta["promptTokenCount"] == 100 and meta["cachedContentTokenCount"] == 20
    assert meta["candidatesTokenCount"] == 38 and meta["thoughtsTokenCount"] == 12
    assert meta["totalTokenCount"] == 150
    assert usage_from_gemini(meta) == USAGE
    assert "cachedContentTokenCount" not in gemini_usage(Usage(input_tokens=1, output_tokens=1))


def test_response_and_chunks() -> None:
    reply = ModelReply(text=TEXT, tool_calls=[WRITE], usage=USAGE)
    body = gemini_response(reply, "gemini-test", "rid")
    candidate = body["candidates"][0]
    assert candidate["finishReason"] == "STOP" and candidate["content"]["role"] == "model"
    assert candidate["content"]["parts"] == [
        {"text": TEXT},
        {"functionCall": {"id": "call_w1", "name": "write_file", "args": WRITE.arguments}},
    ]
    assert body["modelVersion"] == "gemini-test"
    chunks = gemini_chunks(reply, "gemini-test", "rid")
    assert len(chunks) > 2
    assert all("usageMetadata" not in c and "finishReason" not in c["candidates"][0] for c in chunks[:-1])
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert chunks[-1]["usageMetadata"]["totalTokenCount"] == 150
    text = "".join(p.get("text", "") for c in chunks for p in c["candidates"][0]["content"]["parts"])
    assert text == TEXT
    cut = gemini_response(ModelReply(stop_reason="max_tokens"), "m", "r")
    assert cut["candidates"][0]["finishReason"] == "MAX_TOKENS"


def test_usage_from_response_json_sse_and_array() -> None:
    reply = ModelReply(text=TEXT, usage=USAGE)
    body = json.dumps(gemini_response(reply, "gemini-x", "r")).encode()
    assert GEMINI.usage_from_response(body, streamed=False) == (USAGE, "gemini-x")
    chunks = gemini_chunks(reply, "gemini-x", "r")
    sse = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks).encode()
    assert GEMINI.usage_from_response(sse, streamed=True) == (USAGE, "gemini-x")
    assert GEMINI.usage_from_response(json.dumps(chunks).encode(), streamed=True) == (USAGE, "gemini-x")


@pytest.mark.parametrize(
    ("status", "code", "name"),
    [(429, 429, "RESOURCE_EXHAUSTED"), (500, 500, "INTERNAL"), (503, 503, "UNAVAILABLE"), (529, 503, "UNAVAILABLE")],
)
def test_error_bodies(status: int, code: int, name: str) -> None:
    resp = GEMINI.error(GatewayError(status, "nope"))
    assert resp.status == code and resp.text is not None
    assert json.loads(resp.text) == {"error": {"code": code, "message": "nope", "status": name}}


def test_upstream_headers_use_goog_key() -> None:
    out = GEMINI.upstream_headers({"X-Goog-Api-Key": "dummy", "Authorization": "Bearer x", "a": "b"}, "real")
    assert out == {"a": "b", "x-goog-api-key": "real"}


# --------------------------------------------------------------------------- the official client


def test_client_generate_text() -> None:
    with scripted_server(TEXT_REPLY) as srv:
        api = client(srv.url)  # keep the client referenced: it closes its connection pool when collected
        response = api.models.generate_content(model="gemini-2.5-pro", contents="hello")
    assert response.text == TEXT
    meta = response.usage_metadata
    assert meta is not None and meta.prompt_token_count == 100 and meta.candidates_token_count == 38
    assert meta.cached_content_token_count == 20 and meta.thoughts_token_count == 12 and meta.total_token_count == 150
    assert response.candidates and response.candidates[0].finish_reason == types.FinishReason.STOP
    assert response.model_version == "gemini-test"
    assert srv.paths == ["/v1beta/models/gemini-2.5-pro:generateContent"]
    assert srv.requests[0].model == "gemini-2.5-pro" and srv.requests[0].last_user_text == "hello"


def test_client_function_calling_round_trip() -> None:
    with scripted_server(TOOL_REPLY, TEXT_REPLY) as srv:
        api = client(srv.url)
        user = types.Content(role="user", parts=[types.Part.from_text(text="write a.txt")])
        first = api.models.generate_content(model="gemini-2.5-pro", contents=[user], config=tool_config())
        assert first.function_calls is not None and len(first.function_calls) == 1
        call = first.function_calls[0]
        assert call.name == "write_file" and call.args == WRITE.arguments
        assert first.candidates and first.candidates[0].content is not None
        answer = types.Part.from_function_response(name="write_file", response={"output": "written"})
        history = [user, first.candidates[0].content, types.Content(role="user", parts=[answer])]
        second = api.models.generate_content(model="gemini-2.5-pro", contents=history, config=tool_config())
    assert second.text == TEXT
    parsed = srv.requests[1]
    assert parsed.system == "You write files."
    assert [t.name for t in parsed.tools] == ["write_file"] and parsed.tools[0].parameter_names == ["path", "content"]
    assert parsed.messages[1].tool_calls == [WRITE]
    assert parsed.tool_results == [ToolResult("call_w1", "written")]


def test_client_stream() -> None:
    with scripted_server(TEXT_REPLY, TOOL_REPLY) as srv:
        api = client(srv.url)
        chunks = list(api.models.generate_content_stream(model="gemini-2.5-flash", contents="go"))
        stream = api.models.generate_content_stream(model="gemini-2.5-flash", contents="go", config=tool_config())
        calls = [fc for chunk in stream for fc in chunk.function_calls or []]
    assert len(chunks) > 1
    assert "".join(c.text or "" for c in chunks) == TEXT
    last = chunks[-1].usage_metadata
    assert last is not None and last.total_token_count == 150 and last.thoughts_token_count == 12
    assert srv.paths[0] == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert srv.requests[0].stream
    assert [(c.name, c.args) for c in calls] == [("write_file", WRITE.arguments)]


@pytest.mark.parametrize(
    ("status", "exc", "name"),
    [(429, genai_errors.ClientError, "RESOURCE_EXHAUSTED"), (500, genai_errors.ServerError, "INTERNAL")],
)
def test_client_errors(status: int, exc: type[genai_errors.APIError], name: str) -> None:
    with scripted_server(GatewayError(status, "injected failure")) as srv, pytest.raises(exc) as raised:
        api = client(srv.url)
        api.models.generate_content(model="gemini-2.5-pro", contents="x")
    assert raised.value.code == status and raised.value.status == name
    assert raised.value.message == "injected failure"


def test_client_stream_error() -> None:
    with scripted_server(GatewayError(503, "overloaded")) as srv, pytest.raises(genai_errors.ServerError) as raised:
        api = client(srv.url)
        list(api.models.generate_content_stream(model="gemini-2.5-pro", contents="x"))
    assert raised.value.code == 503 and raised.value.status == "UNAVAILABLE"


def test_client_count_tokens_and_json_array_stream() -> None:
    with scripted_server(TEXT_REPLY) as srv:
        api = client(srv.url)
        counted = api.models.count_tokens(model="gemini-2.5-pro", contents="hello there")
        url = f"{srv.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent"
        post = urllib.request.Request(url, data=b'{"contents": []}', headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(post, timeout=10) as raw:
            content_type, chunks = raw.headers["Content-Type"], json.loads(raw.read())
    assert counted.total_tokens is not None and counted.total_tokens > 0
    assert content_type.startswith("application/json")
    assert isinstance(chunks, list) and len(chunks) > 1
    assert "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks) == TEXT
    assert chunks[-1]["usageMetadata"]["totalTokenCount"] == 150


# --------------------------------------------------------------------------- through the real gateway server


def test_gateway_script_mode() -> None:
    with GatewayThread("script") as gw:
        route = gw.open_route("gemini", source=ListSource(TOOL_REPLY, TEXT_REPLY, GatewayError(529, "overloaded")))
        api = genai.Client(api_key="dummy", http_options=types.HttpOptions(base_url=route.base_url, timeout=10_000))
        first = api.models.generate_content(model="gemini-2.5-pro", contents="write a.txt", config=tool_config())
        chunks = list(api.models.generate_content_stream(model="gemini-2.5-pro", contents="go"))
        counted = api.models.count_tokens(model="gemini-2.5-pro", contents="hello")
        with pytest.raises(genai_errors.ServerError) as raised:
            api.models.generate_content(model="gemini-2.5-pro", contents="again")
    assert first.function_calls and first.function_calls[0].args == WRITE.arguments
    assert "".join(c.text or "" for c in chunks) == TEXT
    assert counted.total_tokens
    assert raised.value.code == 503 and raised.value.status == "UNAVAILABLE"
    assert [(c.protocol, c.status) for c in route.calls[:2]] == [("gemini", 200), ("gemini", 200)]
    assert route.calls[2].status in (503, 529)  # the injected 529 goes on the wire as Gemini's 503
    assert recorded_buckets(route.calls[0].token_usage) == buckets(USAGE)


def test_gateway_direct_mode_token_as_key_and_stream_usage() -> None:
    """A direct-mode gateway, reached with the route token as the API key, reads usage from relayed SSE."""
    with GatewayThread("script") as provider:
        upstream = provider.open_route("provider", source=ListSource(TEXT_REPLY, TEXT_REPLY))
        with GatewayThread("direct", upstreams={"gemini": upstream.base_url}, api_keys={"gemini": "real"}) as proxy:
            route = proxy.open_route("task")
            options = types.HttpOptions(base_url=proxy.base_url, timeout=10_000)
            api = genai.Client(api_key=route.token, http_options=options)
            chunks = list(api.models.generate_content_stream(model="gemini-2.5-flash", contents="go"))
            whole = api.models.generate_content(model="gemini-2.5-flash", contents="go")
    assert "".join(c.text or "" for c in chunks) == TEXT and whole.text == TEXT
    assert [c.status for c in route.calls] == [200, 200]
    assert all(recorded_buckets(c.token_usage) == buckets(USAGE) for c in route.calls)
    assert all(c.model == "gemini-test" for c in route.calls)
