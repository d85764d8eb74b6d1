"""The Anthropic Messages wire protocol: parsing, rendering (JSON and SSE), usage reading, errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from coder_eval.gateway.anthropic import (
    AnthropicMessages,
    count_tokens_estimate,
    iter_sse_data,
    render_events,
    render_message,
)
from coder_eval.gateway.protocol import protocol_for
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, ToolCall, Usage

PROTO = AnthropicMessages()

TOOLS: list[dict[str, Any]] = [
    {
        "name": "Write",
        "description": "Write a file",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}, "content": {}}},
    },
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},  # server tool: no input_schema
]


def _body(**extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "You are Claude Code."}, {"type": "text", "text": "Be brief."}],
        "messages": [
            {"role": "user", "content": "write a.txt"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "x"},
                    {"type": "text", "text": "Writing."},
                    {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"file_path": "a.txt"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_2",
                        "is_error": True,
                        "content": [{"type": "text", "text": "denied"}, {"type": "image", "source": {}}],
                    },
                ],
            },
        ],
        "tools": TOOLS,
    }
    body.update(extra)
    return body


def _request(stream: bool = False) -> ModelRequest:
    return PROTO.parse("/v1/messages", {}, _body(stream=stream))


def test_registered_and_owns_its_paths() -> None:
    assert protocol_for("POST", "/v1/messages") is not None
    assert PROTO.owns("POST", "/v1/messages")
    assert PROTO.owns("POST", "/v1/messages/count_tokens")
    assert not PROTO.owns("GET", "/v1/messages")
    assert not PROTO.owns("POST", "/v1/chat/completions")


def test_parse_reads_system_messages_tools_and_flags() -> None:
    req = _request(stream=True)
    assert (req.protocol, req.model, req.stream, req.max_tokens) == ("anthropic", "claude-sonnet-4-6", True, 1024)
    assert req.system == "You are Claude Code.\nBe brief."
    assert [m.role for m in req.messages] == ["user", "assistant", "user"]
    assert req.messages[0].text == "write a.txt"
    assistant = req.messages[1]
    assert assistant.text == "Writing."  # the thinking block is ignored
    assert [(c.id, c.name, c.arguments) for c in assistant.tool_calls] == [("toolu_1", "Write", {"file_path": "a.txt"})]
    results = req.tool_results
    assert [(r.call_id, r.content, r.is_error) for r in results] == [
        ("toolu_1", "ok", False),
        ("toolu_2", "denied", True),
    ]
    assert [t.name for t in req.tools] == ["Write"]  # the server tool is skipped
    assert req.tools[0].parameter_names == ["file_path", "content"]
    assert req.raw["model"] == "claude-sonnet-4-6"


def test_parse_accepts_a_plain_string_system() -> None:
    req = PROTO.parse("/v1/messages", {}, {"model": "m", "system": "sys", "messages": []})
    assert req.system == "sys"
    assert req.tools == []
    assert req.stream is False and req.max_tokens is None


@pytest.mark.parametrize(
    "body",
    [
        {"model": "m"},
        {"model": "m", "messages": "hi"},
        {"model": "m", "messages": [{"role": "tool", "content": "x"}]},
        {"model": "m", "messages": [{"role": "user", "content": 3}]},
    ],
)
def test_parse_rejects_unreadable_bodies(body: dict[str, Any]) -> None:
    with pytest.raises(GatewayError) as info:
        PROTO.parse("/v1/messages", {}, body)
    assert info.value.status == 400
    assert info.value.kind == "invalid_request_error"


def test_render_message_with_text_and_tool_use() -> None:
    reply = ModelReply(
        text="Writing it.",
        tool_calls=[ToolCall("toolu_9", "Write", {"file_path": "b.txt", "content": "x"})],
        usage=Usage(input_tokens=10, output_tokens=5, cache_creation_input_tokens=2, cache_read_input_tokens=3),
        model="claude-sonnet-4-6",
    )
    msg = render_message(_request(), reply)
    assert msg["id"].startswith("msg_")
    assert (msg["type"], msg["role"], msg["model"]) == ("message", "assistant", "claude-sonnet-4-6")
    assert msg["content"] == [
        {"type": "text", "text": "Writing it."},
        {"type": "tool_use", "id": "toolu_9", "name": "Write", "input": {"file_path": "b.txt", "content": "x"}},
    ]
    assert msg["stop_reason"] == "tool_use"  # tool calls stop for tool use even if the reply said end_turn
    assert msg["usage"] == {
        "input_tokens": 10,
        "cache_creation_input_tokens": 2,
        "cache_read_input_tokens": 3,
        "output_tokens": 5,
    }
    assert render_message(_request(), reply) == msg  # deterministic, id included


def test_render_message_stop_reasons_and_empty_reply() -> None:
    assert render_message(_request(), ModelReply(text="hi"))["stop_reason"] == "end_turn"
    cut = ModelReply(text="hi", stop_reason="max_tokens", tool_calls=[ToolCall("t", "Write", {})])
    assert render_message(_request(), cut)["stop_reason"] == "max_tokens"
    assert render_message(_request(), ModelReply())["content"] == [{"type": "text", "text": ""}]


def _events(reply: ModelReply) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for raw in render_events(_request(stream=True), reply):
        text = raw.decode()
        assert text.endswith("\n\n")
        name_line, data_line = text.strip("\n").split("\n")
        assert name_line.startswith("event: ") and data_line.startswith("data: ")
        data = json.loads(data_line[len("data: ") :])
        assert data["type"] == name_line[len("event: ") :]
        out.append((data["type"], data))
    return out


def test_sse_events_follow_the_real_api_order() -> None:
    text = "x" * 100  # more than one text_delta chunk
    reply = ModelReply(
        text=text, tool_calls=[ToolCall("toolu_3", "Write", {"file_path": "c"})], usage=Usage(7, 9, 1, 2)
    )
    events = _events(reply)
    names = [n for n, _ in events]
    assert names == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = events[0][1]["message"]
    assert start["content"] == [] and start["stop_reason"] is None
    assert start["usage"] == {
        "input_tokens": 7,
        "cache_creation_input_tokens": 1,
        "cache_read_input_tokens": 2,
        "output_tokens": 1,
    }
    deltas = [d["delta"] for n, d in events if n == "content_block_delta"]
    assert "".join(d["text"] for d in deltas if d["type"] == "text_delta") == text
    assert json.loads(deltas[-1]["partial_json"]) == {"file_path": "c"}
    tool_start = events[7][1]
    assert tool_start["index"] == 1
    assert tool_start["content_block"] == {"type": "tool_use", "id": "toolu_3", "name": "Write", "input": {}}
    final = events[-2][1]
    assert final["delta"]["stop_reason"] == "tool_use"
    assert final["usage"] == {"output_tokens": 9}


def test_usage_from_json_and_from_sse_agree_with_the_rendering() -> None:
    reply = ModelReply(text="hello", usage=Usage(11, 4, 5, 6), model="claude-haiku-4-5")
    body = json.dumps(render_message(_request(), reply)).encode()
    assert PROTO.usage_from_response(body, streamed=False) == (Usage(11, 4, 5, 6), "claude-haiku-4-5")
    sse = b"".join(render_events(_request(stream=True), reply))
    assert PROTO.usage_from_response(sse, streamed=True) == (Usage(11, 4, 5, 6), "claude-haiku-4-5")


def test_usage_from_sse_takes_the_last_message_delta_and_cumulative_counts() -> None:
    sse = (
        b'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-opus-4-5",'
        b'"usage":{"input_tokens":20,"cache_read_input_tokens":100,"output_tokens":1}}}\n\n'
        b'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":3}}\n\n'
        b'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":8,"input_tokens":25,'
        b'"cache_creation_input_tokens":null}}\n\n'
        b"data: [DONE]\n\n"
    )
    usage, model = PROTO.usage_from_response(sse, streamed=True)
    assert model == "claude-opus-4-5"
    assert usage == Usage(input_tokens=25, output_tokens=8, cache_read_input_tokens=100)


def test_usage_from_error_or_garbage_is_zero() -> None:
    err = b'{"type":"error","error":{"type":"overloaded_error","message":"busy"}}'
    assert PROTO.usage_from_response(err, streamed=False) == (Usage(), None)
    assert PROTO.usage_from_response(b"not json", streamed=False) == (Usage(), None)
    assert PROTO.usage_from_response(b"", streamed=True) == (Usage(), None)


@pytest.mark.parametrize(
    ("err", "kind"),
    [
        (GatewayError(429, "slow down"), "rate_limit_error"),
        (GatewayError(500, "boom"), "api_error"),
        (GatewayError(529, "busy"), "overloaded_error"),
        (GatewayError(400, "bad"), "invalid_request_error"),
        (GatewayError(429, "custom", "my_error"), "my_error"),
    ],
)
def test_error_bodies(err: GatewayError, kind: str) -> None:
    response = PROTO.error(err)
    assert response.status == err.status
    assert response.body is not None
    assert json.loads(bytes(response.body)) == {"type": "error", "error": {"type": kind, "message": err.message}}


def test_count_tokens_is_answered_locally_and_deterministically() -> None:
    body = _body()
    response = PROTO.local_response("/v1/messages/count_tokens", body)
    assert response is not None and response.body is not None
    assert json.loads(bytes(response.body)) == {"input_tokens": count_tokens_estimate(body)}
    assert count_tokens_estimate(body) == len(json.dumps(body)) // 4
    assert PROTO.local_response("/v1/messages", body) is None


def test_upstream_headers_replace_the_agents_key_only_when_configured() -> None:
    headers = {"X-Api-Key": "dummy", "Authorization": "Bearer t", "anthropic-version": "2023-06-01"}
    assert PROTO.upstream_headers(headers, None) == headers
    assert PROTO.upstream_headers(headers, "sk-real") == {"anthropic-version": "2023-06-01", "x-api-key": "sk-real"}


def test_iter_sse_data_skips_non_json_lines() -> None:
    assert iter_sse_data(b'event: x\ndata: {"a":1}\n\ndata: [DONE]\n\n: comment\n') == [{"a": 1}]


def test_inline_system_messages_join_the_system_text() -> None:
    body = {
        "model": "m",
        "system": "base",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "system", "content": [{"type": "text", "text": "extra"}]},
        ],
    }
    request = PROTO.parse("/v1/messages", {}, body)
    assert request.system == "base\n\nextra"
    assert [m.role for m in request.messages] == ["user"]
