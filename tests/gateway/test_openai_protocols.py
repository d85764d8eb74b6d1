"""OpenAI Chat Completions and Responses wire protocols: parsing, rendering, and the official openai client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from protocol_harness import ListSource, ScriptedServer, buckets, recorded_buckets, scripted_server

from coder_eval.gateway.openai_chat import (
    OpenAIChatProtocol,
    chat_chunks,
    chat_completion,
    chat_usage,
    text_pieces,
    usage_from_chat,
)
from coder_eval.gateway.openai_responses import (
    OpenAIResponsesProtocol,
    ResponseDraft,
    response_events,
    response_object,
    responses_usage,
    usage_from_responses,
)
from coder_eval.gateway.protocol import protocol_for
from coder_eval.gateway.server import GatewayThread
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, ToolCall, ToolResult, Usage

pytestmark = pytest.mark.timeout(60)

USAGE = Usage(
    input_tokens=100, output_tokens=40, cache_creation_input_tokens=0, cache_read_input_tokens=30, reasoning_tokens=7
)
WRITE = ToolCall(id="call_w1", name="write_file", arguments={"path": "a.txt", "content": "hello\nworld"})
TOOL_REPLY = ModelReply(tool_calls=[WRITE], usage=USAGE, stop_reason="tool_use", model="gpt-test")
TEXT = "All done: the file is written and the tests pass."
TEXT_REPLY = ModelReply(text=TEXT, usage=USAGE, model="gpt-test")
SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
}
CHAT = OpenAIChatProtocol()
RESPONSES = OpenAIResponsesProtocol()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with scripted_server(TOOL_REPLY, TEXT_REPLY) as srv:
        yield srv


def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/t/tok-1/v1", api_key="dummy", max_retries=0, timeout=10)


def sse_body(frames: list[str]) -> bytes:
    return "".join(frames).encode()


# --------------------------------------------------------------------------- routing and helpers


def test_registry_routes_openai_paths() -> None:
    assert type(protocol_for("POST", "/v1/chat/completions")) is OpenAIChatProtocol
    assert type(protocol_for("POST", "/chat/completions")) is OpenAIChatProtocol
    assert type(protocol_for("POST", "/v1/responses")) is OpenAIResponsesProtocol
    assert type(protocol_for("POST", "/responses")) is OpenAIResponsesProtocol
    assert not CHAT.owns("GET", "/v1/chat/completions")
    assert not RESPONSES.owns("POST", "/v1/responses/resp_1/cancel")


def test_text_pieces_rejoin_exactly() -> None:
    text = "  leading space, two  spaces,\nnew line and a longwordwithoutanyspacesatallthatgoeson trailing "
    pieces = text_pieces(text, size=8)
    assert "".join(pieces) == text
    assert len(pieces) > 3
    assert text_pieces("") == []


def test_upstream_headers_carry_bearer_key() -> None:
    out = CHAT.upstream_headers({"authorization": "Bearer dummy", "X-Other": "1"}, "sk-real")
    assert out == {"X-Other": "1", "Authorization": "Bearer sk-real"}
    assert RESPONSES.upstream_headers({"a": "b"}, None) == {"a": "b"}


# --------------------------------------------------------------------------- chat: parse / render


def test_chat_parse_full_conversation() -> None:
    body: dict[str, Any] = {
        "model": "gpt-4.1",
        "stream": True,
        "max_completion_tokens": 512,
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "developer", "content": [{"type": "text", "text": "Use tools."}]},
            {"role": "user", "content": [{"type": "text", "text": "write a.txt"}, {"type": "image_url"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": '{"path":"a"}'}},
                    {"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "not json"}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "done"}]},
        ],
        "tools": [
            {"type": "function", "function": {"name": "write_file", "description": "Write", "parameters": SCHEMA}},
            {"type": "custom", "custom": {"name": "ignored"}},
        ],
    }
    req = CHAT.parse("/v1/chat/completions", {}, body)
    assert req.protocol == "openai_chat" and req.model == "gpt-4.1" and req.stream and req.max_tokens == 512
    assert req.system == "You are terse.\n\nUse tools."
    assert [m.role for m in req.messages] == ["user", "assistant", "user"]
    assert req.messages[0].text == "write a.txt"
    assert req.messages[1].tool_calls == [
        ToolCall("c1", "write_file", {"path": "a"}),
        ToolCall("c2", "bash", {"_raw": "not json"}),
    ]
    assert req.tool_results == [ToolResult("c1", "ok"), ToolResult("c2", "done")]
    assert [t.name for t in req.tools] == ["write_file"]
    assert req.tools[0].parameter_names == ["path", "content"]
    assert req.raw is body


def test_chat_parse_rejects_bad_bodies() -> None:
    with pytest.raises(GatewayError) as err:
        CHAT.parse("/v1/chat/completions", {}, {"model": "m"})
    assert err.value.status == 400
    with pytest.raises(GatewayError):
        CHAT.parse("/v1/chat/completions", {}, {"messages": [{"role": "wizard", "content": "x"}]})


def test_chat_usage_round_trip() -> None:
    rendered = chat_usage(USAGE)
    assert rendered["prompt_tokens"] == 130
    assert rendered["prompt_tokens_details"]["cached_tokens"] == 30
    assert rendered["completion_tokens_details"]["reasoning_tokens"] == 7
    assert rendered["total_tokens"] == 170
    assert usage_from_chat(rendered) == USAGE
    written = Usage(input_tokens=5, output_tokens=1, cache_creation_input_tokens=50, cache_read_input_tokens=9)
    assert usage_from_chat(chat_usage(written)) == written


def test_chat_completion_body_and_usage_from_response() -> None:
    body = chat_completion(TOOL_REPLY, "gpt-test", "chatcmpl-1", 1700000000)
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] is None
    call = choice["message"]["tool_calls"][0]
    assert call["id"] == "call_w1" and json.loads(call["function"]["arguments"]) == WRITE.arguments
    assert (
        chat_completion(ModelReply(text="x", stop_reason="max_tokens"), "m", "i", 0)["choices"][0]["finish_reason"]
        == "length"
    )
    usage, model = CHAT.usage_from_response(json.dumps(body).encode(), streamed=False)
    assert usage == USAGE and model == "gpt-test"


def test_chat_chunks_reassemble_and_carry_usage() -> None:
    reply = ModelReply(text=TEXT, tool_calls=[WRITE], usage=USAGE, stop_reason="tool_use")
    chunks = chat_chunks(reply, "gpt-test", "chatcmpl-1", 0, include_usage=True)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == TEXT
    args = "".join(
        tc["function"]["arguments"]
        for c in chunks
        if c["choices"]
        for tc in c["choices"][0]["delta"].get("tool_calls", [])
    )
    assert json.loads(args) == WRITE.arguments
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] == 130
    frames = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
    assert CHAT.usage_from_response(sse_body(frames), streamed=True) == (USAGE, "gpt-test")
    plain = chat_chunks(reply, "m", "i", 0, include_usage=False)
    assert all("usage" not in c for c in plain)


@pytest.mark.parametrize(
    ("status", "kind", "code"), [(429, "requests", "rate_limit_exceeded"), (529, "server_error", "server_overloaded")]
)
def test_openai_error_bodies(status: int, kind: str, code: str) -> None:
    resp = CHAT.error(GatewayError(status, "slow down", "rate_limit_error"))
    assert resp.status == (503 if status == 529 else status)
    assert resp.text is not None
    assert json.loads(resp.text) == {"error": {"message": "slow down", "type": kind, "param": None, "code": code}}


# --------------------------------------------------------------------------- responses: parse / render


def test_responses_parse_items() -> None:
    body: dict[str, Any] = {
        "model": "gpt-5-codex",
        "instructions": "You are Codex.",
        "max_output_tokens": 900,
        "stream": True,
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "sandbox: on"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "xx"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "On it."}]},
            {"type": "function_call", "call_id": "call_1", "name": "shell", "arguments": '{"command":["ls"]}'},
            {"type": "custom_tool_call", "call_id": "call_2", "name": "apply_patch", "input": "*** Begin Patch"},
            {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"},
            {"type": "custom_tool_call_output", "call_id": "call_2", "output": [{"type": "input_text", "text": "ok"}]},
            {"role": "user", "content": "thanks"},
        ],
        "tools": [
            {"type": "function", "name": "shell", "description": "Run", "parameters": SCHEMA, "strict": False},
            {"type": "custom", "name": "apply_patch", "description": "Patch", "format": {"type": "grammar"}},
            {"type": "web_search"},
        ],
    }
    req = RESPONSES.parse("/v1/responses", {}, body)
    assert req.model == "gpt-5-codex" and req.stream and req.max_tokens == 900
    assert req.system == "You are Codex.\n\nsandbox: on"
    assert [m.role for m in req.messages] == ["user", "assistant", "user"]
    assert req.messages[1].text == "On it."
    assert req.messages[1].tool_calls == [
        ToolCall("call_1", "shell", {"command": ["ls"]}),
        ToolCall("call_2", "apply_patch", {"input": "*** Begin Patch"}),
    ]
    assert req.tool_results == [ToolResult("call_1", "a.txt"), ToolResult("call_2", "ok")]
    assert req.messages[2].text == "thanks"
    assert [t.name for t in req.tools] == ["shell", "apply_patch"]
    assert req.tools[1].parameter_names == ["input"]


def test_responses_parse_string_input_and_errors() -> None:
    req = RESPONSES.parse("/v1/responses", {}, {"model": "m", "input": "hi"})
    assert req.messages[0].text == "hi" and not req.stream and req.system == ""
    with pytest.raises(GatewayError):
        RESPONSES.parse("/v1/responses", {}, {"model": "m"})
    with pytest.raises(GatewayError):
        RESPONSES.parse("/v1/responses", {}, {"model": "m", "input": 3})


def test_responses_usage_round_trip() -> None:
    rendered = responses_usage(USAGE)
    assert rendered["input_tokens"] == 130 and rendered["input_tokens_details"]["cached_tokens"] == 30
    assert rendered["output_tokens_details"]["reasoning_tokens"] == 7 and rendered["total_tokens"] == 170
    assert usage_from_responses(rendered) == USAGE


def _draft(reply: ModelReply, **raw: Any) -> ResponseDraft:
    request = ModelRequest(protocol="openai_responses", model="gpt-5", messages=[], raw={"input": "x", **raw})
    return ResponseDraft(request=request, reply=reply)


def test_response_events_order_and_sequence() -> None:
    draft = _draft(ModelReply(text=TEXT, tool_calls=[WRITE], usage=USAGE, model="gpt-test"))
    events = response_events(draft)
    kinds = [e["type"] for e in events]
    assert kinds[:6] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
    ]
    i = kinds.index("response.output_text.done")
    assert kinds[i : i + 4] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
    ]
    assert kinds[-3:] == [
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[0]["response"]["status"] == "in_progress" and events[0]["response"]["usage"] is None
    final = events[-1]["response"]
    assert [item["type"] for item in final["output"]] == ["message", "function_call"]
    assert final["output"][1]["call_id"] == "call_w1" and final["usage"]["input_tokens"] == 130
    frames = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events]
    assert RESPONSES.usage_from_response(sse_body(frames), streamed=True) == (USAGE, "gpt-test")


def test_custom_tool_calls_render_as_custom_items() -> None:
    patch = ToolCall(id="call_p", name="apply_patch", arguments={"input": "*** Begin Patch\n*** End Patch\n"})
    draft = _draft(ModelReply(tool_calls=[patch]), tools=[{"type": "custom", "name": "apply_patch"}])
    final = response_object(draft, final=True)
    assert final["output"] == [
        {
            "id": draft.call_item_ids[0],
            "type": "custom_tool_call",
            "status": "completed",
            "input": "*** Begin Patch\n*** End Patch\n",
            "call_id": "call_p",
            "name": "apply_patch",
        }
    ]
    kinds = [e["type"] for e in response_events(draft)]
    assert "response.custom_tool_call_input.delta" in kinds and "response.custom_tool_call_input.done" in kinds


def test_max_tokens_reply_is_incomplete() -> None:
    draft = _draft(ModelReply(text="cut", stop_reason="max_tokens"))
    final = response_object(draft, final=True)
    assert final["status"] == "incomplete"
    assert final["incomplete_details"] == {"reason": "max_output_tokens"}
    assert response_events(draft)[-1]["type"] == "response.incomplete"


# --------------------------------------------------------------------------- the official client: chat


def test_client_chat_plain() -> None:
    with scripted_server(TEXT_REPLY) as srv:
        done = client(srv.url).chat.completions.create(
            model="gpt-4.1", messages=[{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]
        )
    assert done.choices[0].message.content == TEXT
    assert done.choices[0].finish_reason == "stop"
    assert done.model == "gpt-test"
    assert done.usage is not None and done.usage.prompt_tokens == 130 and done.usage.completion_tokens == 40
    assert done.usage.prompt_tokens_details is not None and done.usage.prompt_tokens_details.cached_tokens == 30
    assert srv.requests[0].system == "sys" and srv.requests[0].last_user_text == "hi"
    assert srv.paths == ["/v1/chat/completions"]


def test_client_chat_tool_round_trip(server: ScriptedServer) -> None:
    api = client(server.url)
    tools: Any = [{"type": "function", "function": {"name": "write_file", "description": "W", "parameters": SCHEMA}}]
    history: list[Any] = [{"role": "user", "content": "write a.txt"}]
    first = api.chat.completions.create(model="gpt-4.1", messages=history, tools=tools)
    message = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls"
    assert message.tool_calls is not None
    call = message.tool_calls[0]
    assert call.type == "function" and call.id == "call_w1" and call.function.name == "write_file"
    assert json.loads(call.function.arguments) == WRITE.arguments
    history += [message.model_dump(exclude_none=True), {"role": "tool", "tool_call_id": call.id, "content": "ok"}]
    second = api.chat.completions.create(model="gpt-4.1", messages=history, tools=tools)
    assert second.choices[0].message.content == TEXT
    parsed = server.requests[1]
    assert parsed.tool_results == [ToolResult("call_w1", "ok")]
    assert parsed.messages[1].tool_calls == [WRITE]
    assert [t.name for t in parsed.tools] == ["write_file"]


def test_client_chat_stream_with_usage(server: ScriptedServer) -> None:
    api = client(server.url)
    stream = api.chat.completions.create(
        model="gpt-4.1",
        messages=[{"role": "user", "content": "go"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for tc in choice.delta.tool_calls or []:
                entry = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                entry["id"] += tc.id or ""
                entry["name"] += (tc.function and tc.function.name) or ""
                entry["arguments"] += (tc.function and tc.function.arguments) or ""
    assert calls[0]["id"] == "call_w1" and calls[0]["name"] == "write_file"
    assert json.loads(calls[0]["arguments"]) == WRITE.arguments
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens == 170
    assert server.requests[0].stream
    # the SDK's own stream accumulator rebuilds the text reply
    with api.chat.completions.stream(model="gpt-4.1", messages=[{"role": "user", "content": "go"}]) as events:
        final = events.get_final_completion()
    assert final.choices[0].message.content == TEXT


@pytest.mark.parametrize(
    ("status", "exc"),
    [(429, openai.RateLimitError), (500, openai.InternalServerError), (529, openai.InternalServerError)],
)
def test_client_chat_errors(status: int, exc: type[openai.APIStatusError]) -> None:
    with scripted_server(GatewayError(status, "injected failure")) as srv, pytest.raises(exc) as raised:
        client(srv.url).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert "injected failure" in str(raised.value)
    assert raised.value.status_code == (503 if status == 529 else status)


# --------------------------------------------------------------------------- the official client: responses


def test_client_responses_plain() -> None:
    with scripted_server(TEXT_REPLY) as srv:
        done = client(srv.url).responses.create(model="gpt-5", input="hi", instructions="be brief")
    assert done.output_text == TEXT and done.status == "completed"
    assert done.usage is not None and done.usage.input_tokens == 130 and done.usage.output_tokens == 40
    assert done.usage.input_tokens_details.cached_tokens == 30
    assert done.usage.output_tokens_details.reasoning_tokens == 7
    assert srv.requests[0].system == "be brief" and srv.paths == ["/v1/responses"]


def test_client_responses_function_call_round_trip(server: ScriptedServer) -> None:
    api = client(server.url)
    tools: Any = [{"type": "function", "name": "write_file", "description": "W", "parameters": SCHEMA, "strict": False}]
    first = api.responses.create(model="gpt-5", input="write a.txt", tools=tools)
    calls = [item for item in first.output if item.type == "function_call"]
    assert len(calls) == 1 and calls[0].call_id == "call_w1" and calls[0].name == "write_file"
    assert json.loads(calls[0].arguments) == WRITE.arguments
    follow: list[Any] = [
        {"role": "user", "content": "write a.txt"},
        *(item.model_dump(exclude_none=True) for item in first.output),
        {"type": "function_call_output", "call_id": calls[0].call_id, "output": "written"},
    ]
    second = api.responses.create(model="gpt-5", input=follow, tools=tools)
    assert second.output_text == TEXT
    assert server.requests[1].tool_results == [ToolResult("call_w1", "written")]
    assert server.requests[1].messages[1].tool_calls == [WRITE]


def test_client_responses_stream_events(server: ScriptedServer) -> None:
    api = client(server.url)
    events = list(api.responses.create(model="gpt-5", input="go", stream=True))
    kinds = [e.type for e in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.function_call_arguments.delta" in kinds
    assert [e.sequence_number for e in events] == list(range(len(events)))
    done = [e for e in events if e.type == "response.output_item.done"]
    assert done[0].item.type == "function_call" and json.loads(done[0].item.arguments) == WRITE.arguments
    completed = events[-1]
    assert completed.type == "response.completed" and completed.response.usage is not None
    assert completed.response.usage.total_tokens == 170
    # the SDK's stream accumulator validates event order and item identities
    with api.responses.stream(model="gpt-5", input="go") as stream:
        deltas = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert "".join(deltas) == TEXT and final.output_text == TEXT


@pytest.mark.parametrize(("status", "exc"), [(429, openai.RateLimitError), (500, openai.InternalServerError)])
def test_client_responses_errors(status: int, exc: type[openai.APIStatusError]) -> None:
    with scripted_server(GatewayError(status, "injected failure")) as srv, pytest.raises(exc) as raised:
        client(srv.url).responses.create(model="m", input="x", stream=True)
    assert raised.value.status_code == status
    assert isinstance(raised.value.body, dict) and raised.value.body.get("message") == "injected failure"


# --------------------------------------------------------------------------- through the real gateway server


def _route_client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{base_url}/v1", api_key="dummy", max_retries=0, timeout=10)


def test_gateway_script_mode_chat_and_responses() -> None:
    tools: Any = [{"type": "function", "function": {"name": "write_file", "description": "W", "parameters": SCHEMA}}]
    rtools: Any = [{"type": "function", "name": "write_file", "description": "W", "parameters": SCHEMA}]
    with GatewayThread("script") as gw:
        chat_route = gw.open_route("chat", source=ListSource(TOOL_REPLY, GatewayError(429, "slow down")))
        resp_route = gw.open_route("responses", source=ListSource(TOOL_REPLY, TEXT_REPLY))
        chat = _route_client(chat_route.base_url)
        stream = chat.chat.completions.create(
            model="gpt-4.1",
            messages=[{"role": "user", "content": "go"}],
            tools=tools,
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)
        with pytest.raises(openai.RateLimitError):
            chat.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "x"}], tools=tools)
        responses = _route_client(resp_route.base_url)
        first = responses.responses.create(model="gpt-5", input="go", tools=rtools)
        with responses.responses.stream(model="gpt-5", input="go", tools=rtools) as events:
            final = events.get_final_response()
    deltas = [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []]
    assert deltas[0].id == "call_w1" and chunks[-1].usage is not None and chunks[-1].usage.prompt_tokens == 130
    assert [(c.protocol, c.status) for c in chat_route.calls] == [("openai_chat", 200), ("openai_chat", 429)]
    assert recorded_buckets(chat_route.calls[0].token_usage) == buckets(USAGE)
    assert [item.type for item in first.output] == ["function_call"] and final.output_text == TEXT
    assert [c.protocol for c in resp_route.calls] == ["openai_responses", "openai_responses"]


@pytest.mark.parametrize("stream", [False, True])
def test_gateway_direct_mode_reads_usage_from_provider_bytes(stream: bool) -> None:
    """A direct-mode gateway relays a (scripted) provider and reads usage back out of what it relayed."""
    with GatewayThread("script") as provider:
        upstream = provider.open_route("provider", source=ListSource(TEXT_REPLY, TEXT_REPLY))
        upstreams = {"openai_chat": upstream.base_url, "openai_responses": upstream.base_url}
        with GatewayThread("direct", upstreams=upstreams, api_keys={"openai_chat": "sk-real"}) as proxy:
            route = proxy.open_route("task")
            api = _route_client(route.base_url)
            if stream:
                chunks = list(
                    api.chat.completions.create(
                        model="gpt-4.1",
                        messages=[{"role": "user", "content": "hi"}],
                        stream=True,
                        stream_options={"include_usage": True},
                    )
                )
                text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
                events = list(api.responses.create(model="gpt-5", input="hi", stream=True))
                assert events[-1].type == "response.completed"
            else:
                done = api.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}])
                text = done.choices[0].message.content or ""
                assert api.responses.create(model="gpt-5", input="hi").output_text == TEXT
    assert text == TEXT
    assert [c.protocol for c in route.calls] == ["openai_chat", "openai_responses"]
    assert all(recorded_buckets(c.token_usage) == buckets(USAGE) for c in route.calls)
    assert all(c.model == "gpt-test" for c in route.calls)
