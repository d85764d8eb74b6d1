"""The gateway server, driven by the official anthropic client over 127.0.0.1.

Script mode with small test reply sources; record against a second gateway standing
in for the provider, then replay with that provider stopped; direct mode; budgets;
attribution; per-call records.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import anthropic
import pytest

from coder_eval.gateway.server import Budget, GatewayThread, Route
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, ToolCall, Usage
from coder_eval.models.telemetry import ProviderCallCost
from coder_eval.pricing import calculate_cost

pytestmark = pytest.mark.timeout(60)

MODEL = "claude-sonnet-4-6"
WRITE_TOOL: dict[str, Any] = {
    "name": "Write",
    "description": "Write a file",
    "input_schema": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["file_path", "content"],
    },
}
PROMPT = [{"role": "user", "content": "write a.txt"}]


class ToolThenText:
    """Asks for a Write call; once its result comes back, answers with text quoting it. Side calls get a title.

    Replies are billed as `billed_model` ("scripted" = free, like the scripted model's default).
    """

    def __init__(self, billed_model: str = "scripted") -> None:
        self.requests: list[ModelRequest] = []
        self.model = billed_model

    async def reply(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        if not request.tools:
            return ModelReply(text="Title: writing a file", model=self.model)
        if not request.tool_results:
            call = ToolCall("toolu_01", "Write", {"file_path": "a.txt", "content": "hi"})
            return ModelReply(tool_calls=[call], model=self.model)
        return ModelReply(text=f"Done: {request.tool_results[0].content}", model=self.model)


class Scripted:
    """Replies (or raises) the given steps in order, whatever the request."""

    def __init__(self, *steps: ModelReply | GatewayError | Exception) -> None:
        self.steps = list(steps)

    async def reply(self, request: ModelRequest) -> ModelReply:
        step = self.steps.pop(0) if self.steps else ModelReply(text="(script exhausted)")
        if isinstance(step, Exception):
            raise step
        return step


def _client(base_url: str, api_key: str = "dummy") -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=base_url, api_key=api_key, max_retries=0, timeout=10.0)


def _http(method: str, url: str, body: dict[str, Any] | bytes | None = None) -> tuple[int, str, bytes]:
    """A raw HTTP exchange (status, content type, body bytes), so tests see exactly what went over the wire."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    try:
        data = json.dumps(body).encode() if isinstance(body, dict) else body
        headers = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(method, (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), data, headers)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        conn.close()


def _tool_result_turn(first: Any) -> list[dict[str, Any]]:
    """The conversation after `first` (a tool_use message) with the tool's result appended."""
    tool_use = next(b for b in first.content if b.type == "tool_use")
    assistant = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": tool_use.id, "name": tool_use.name, "input": tool_use.input}],
    }
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": "written"}]}
    return [*PROMPT, assistant, result]


def _without_latency(calls: list[ProviderCallCost]) -> list[dict[str, Any]]:
    """The records without timing, and without the provider (only a relaying gateway names one)."""
    return [c.model_dump(exclude={"latency_ms", "provider"}) for c in calls]


@pytest.fixture
def gateway() -> Iterator[GatewayThread]:
    with GatewayThread("script") as gw:
        yield gw


# -- script mode with the official client ----------------------------------------------------------


def test_tool_use_round_trip_non_streaming(gateway: GatewayThread) -> None:
    source = ToolThenText()
    route = gateway.open_route("task-1", source=source)
    client = _client(route.base_url)
    first = client.messages.create(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL])
    assert first.stop_reason == "tool_use"
    assert [(b.type, getattr(b, "input", None)) for b in first.content] == [
        ("tool_use", {"file_path": "a.txt", "content": "hi"})
    ]
    second = client.messages.create(
        model=MODEL, max_tokens=256, messages=_tool_result_turn(first), tools=[WRITE_TOOL], system="Be brief."
    )
    assert second.stop_reason == "end_turn"
    assert second.content[0].type == "text" and second.content[0].text == "Done: written"
    assert source.requests[1].system == "Be brief."
    assert [t.name for t in source.requests[1].tools] == ["Write"]
    assert [c.status for c in route.calls] == [200, 200]


def test_tool_use_round_trip_streaming(gateway: GatewayThread) -> None:
    route = gateway.open_route("task-1", source=ToolThenText())
    client = _client(route.base_url)
    with client.messages.stream(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL]) as stream:
        first = stream.get_final_message()
    assert first.stop_reason == "tool_use"
    assert first.content[0].type == "tool_use" and first.content[0].input == {"file_path": "a.txt", "content": "hi"}
    events = client.messages.create(
        model=MODEL, max_tokens=256, messages=_tool_result_turn(first), tools=[WRITE_TOOL], stream=True
    )
    names, text = [], ""
    for event in events:
        names.append(event.type)
        if event.type == "content_block_delta" and event.delta.type == "text_delta":
            text += event.delta.text
    assert text == "Done: written"
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert first.usage.input_tokens == route.calls[0].token_usage.uncached_input_tokens
    assert first.usage.output_tokens == route.calls[0].token_usage.output_tokens


def test_sse_wire_format(gateway: GatewayThread) -> None:
    route = gateway.open_route("task-1", source=Scripted(ModelReply(text="hello")))
    body = {"model": MODEL, "max_tokens": 10, "messages": PROMPT, "stream": True}
    status, content_type, raw = _http("POST", f"{route.base_url}/v1/messages?beta=true", body)
    assert status == 200
    assert content_type.startswith("text/event-stream")
    names = [line[len("event: ") :] for line in raw.decode().splitlines() if line.startswith("event: ")]
    assert names == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_per_call_records(gateway: GatewayThread) -> None:
    route = gateway.open_route("task-1", source=ToolThenText(billed_model=MODEL))
    seen: list[ProviderCallCost] = []
    route.events = seen.append
    client = _client(route.base_url)
    message = client.messages.create(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL])
    title = client.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=PROMPT)  # no tools: side call
    assert title.content[0].type == "text" and title.content[0].text == "Title: writing a file"
    first, side = route.calls
    assert seen == route.calls
    assert (first.protocol, first.model, first.status, first.error, first.side_call) == (
        "anthropic",
        MODEL,
        200,
        None,
        False,
    )
    assert first.latency_ms > 0
    usage = first.token_usage
    assert (usage.uncached_input_tokens, usage.output_tokens) == (
        message.usage.input_tokens,
        message.usage.output_tokens,
    )
    assert usage.uncached_input_tokens > 0 and usage.output_tokens > 0
    assert usage.total_cost_usd == pytest.approx(
        calculate_cost(MODEL, usage.uncached_input_tokens, usage.output_tokens)
    )
    assert (side.model, side.side_call) == (MODEL, True)  # billed as the source says, whatever was asked
    assert route.usage.total_tokens == usage.total_tokens + side.token_usage.total_tokens
    assert route.cost_usd == pytest.approx((usage.total_cost_usd or 0) + (side.token_usage.total_cost_usd or 0))


def test_reply_usage_is_kept_and_models_are_priced_or_not(gateway: GatewayThread) -> None:
    usage = Usage(input_tokens=100, output_tokens=20, cache_creation_input_tokens=30, cache_read_input_tokens=400)
    second = ModelReply(text="b", model="no-such-model")  # a script that names an unknown model to bill
    route = gateway.open_route("task-1", source=Scripted(ModelReply(text="a", usage=usage), second))
    client = _client(route.base_url)
    message = client.messages.create(model="scripted", max_tokens=10, messages=PROMPT)
    assert (message.usage.cache_read_input_tokens, message.usage.cache_creation_input_tokens) == (400, 30)
    record = route.calls[0].token_usage
    assert (record.uncached_input_tokens, record.output_tokens) == (100, 20)
    assert (record.cache_creation_input_tokens, record.cache_read_input_tokens) == (30, 400)
    assert record.total_cost_usd == 0.0 and route.cost_usd == 0.0  # "scripted" is priced at zero
    client.messages.create(model="no-such-model", max_tokens=10, messages=PROMPT)
    assert route.calls[1].token_usage.total_cost_usd is None
    assert route.cost_usd is None  # one unpriced call makes the total unknown


def test_count_tokens_is_local_and_not_a_call(gateway: GatewayThread) -> None:
    route = gateway.open_route("task-1", source=Scripted())
    counted = _client(route.base_url).messages.count_tokens(model=MODEL, messages=PROMPT)
    assert counted.input_tokens > 0
    assert route.calls == []


# -- probes, attribution, malformed requests ----------------------------------------------------------


def test_head_and_get_probes(gateway: GatewayThread) -> None:
    route = gateway.open_route("task-1", source=Scripted())
    for method, url in [
        ("HEAD", f"{gateway.base_url}/"),
        ("HEAD", f"{gateway.base_url}/api/hello"),
        ("GET", f"{gateway.base_url}/"),
        ("HEAD", f"{route.base_url}/"),
        ("HEAD", f"{route.base_url}/api/hello"),
        ("GET", route.base_url),
    ]:
        status, _, content = _http(method, url)
        assert (method, url, status, content) == (method, url, 200, b"")
    assert route.calls == []


def test_unknown_or_closed_token_is_404(gateway: GatewayThread) -> None:
    with pytest.raises(anthropic.NotFoundError):
        _client(f"{gateway.base_url}/t/not-a-token").messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
    with pytest.raises(anthropic.NotFoundError):
        _client(gateway.base_url, api_key="dummy").messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
    route = gateway.open_route("task-1", source=Scripted())
    gateway.close_route(route)
    with pytest.raises(anthropic.NotFoundError):
        _client(route.base_url).messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
    assert _http("HEAD", f"{gateway.base_url}/t/not-a-token/")[0] == 404


def test_token_as_api_key_when_the_client_cannot_set_a_base_path(gateway: GatewayThread) -> None:
    route = gateway.open_route("task-1", source=Scripted(ModelReply(text="by key"), ModelReply(text="by bearer")))
    by_key = _client(gateway.base_url, api_key=route.token).messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
    assert by_key.content[0].type == "text" and by_key.content[0].text == "by key"
    bearer = anthropic.Anthropic(base_url=gateway.base_url, auth_token=route.token, max_retries=0, timeout=10.0)
    by_bearer = bearer.messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
    assert by_bearer.content[0].type == "text" and by_bearer.content[0].text == "by bearer"
    assert len(route.calls) == 2


def test_unknown_path_and_bad_bodies(gateway: GatewayThread) -> None:
    route = gateway.open_route("task-1", source=Scripted())
    assert _http("POST", f"{route.base_url}/v1/unknown", {})[0] == 404
    for body in (b"{nope", {"model": MODEL, "messages": "x"}):
        status, _, raw = _http("POST", f"{route.base_url}/v1/messages", body)
        assert status == 400
        assert json.loads(raw)["error"]["type"] == "invalid_request_error"
    assert [c.status for c in route.calls] == [400]  # an unreadable model call is recorded


# -- errors and budgets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("err", "expected"),
    [
        (GatewayError(500, "boom"), anthropic.InternalServerError),
        (GatewayError(429, "slow down"), anthropic.RateLimitError),
        (GatewayError(529, "overloaded"), anthropic.OverloadedError),
    ],
)
def test_injected_errors_surface_as_the_clients_errors(
    gateway: GatewayThread, err: GatewayError, expected: type[anthropic.APIStatusError]
) -> None:
    route = gateway.open_route("task-1", source=Scripted(err, ModelReply(text="recovered")))
    client = _client(route.base_url)
    with pytest.raises(expected) as info:
        client.messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
    assert info.value.status_code == err.status
    assert err.message in str(info.value)
    retried = client.messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
    assert retried.content[0].type == "text" and retried.content[0].text == "recovered"
    failed = route.calls[0]
    assert (failed.status, failed.error, failed.token_usage.total_tokens) == (err.status, err.message, 0)
    assert route.calls[1].status == 200


def test_broken_or_missing_source_is_a_500(gateway: GatewayThread) -> None:
    broken = gateway.open_route("broken", source=Scripted(RuntimeError("bug in the script")))
    with pytest.raises(anthropic.InternalServerError, match="bug in the script"):
        _client(broken.base_url).messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
    sourceless = gateway.open_route("sourceless")
    with pytest.raises(anthropic.InternalServerError, match="no reply source"):
        _client(sourceless.base_url).messages.create(model=MODEL, max_tokens=5, messages=PROMPT)


def test_token_budget_refuses_the_next_call(gateway: GatewayThread) -> None:
    route = gateway.open_route("task-1", source=ToolThenText(), budget=Budget(max_total_tokens=10))
    client = _client(route.base_url)
    client.messages.create(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL])
    assert route.budget_exceeded is None  # spending past the budget is noticed before the next call
    with pytest.raises(anthropic.BadRequestError, match="coder-eval budget exceeded:") as info:
        client.messages.create(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL])
    assert info.value.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": route.calls[1].error},
    }
    assert route.budget_exceeded == "tokens"
    refused = route.calls[1]
    assert refused.status == 400 and refused.error is not None
    assert refused.error.startswith("coder-eval budget exceeded:")
    assert refused.token_usage.total_tokens == 0


def test_usd_budget_refuses_the_next_call(gateway: GatewayThread) -> None:
    budget = Budget(max_usd=1e-6, max_total_tokens=10**6)
    route = gateway.open_route("task-1", source=ToolThenText(billed_model=MODEL), budget=budget)
    client = _client(route.base_url)
    client.messages.create(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL])
    with pytest.raises(anthropic.BadRequestError, match=r"coder-eval budget exceeded: \$"):
        client.messages.create(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL])
    assert route.budget_exceeded == "usd"


def test_scripted_replies_are_free_by_default(gateway: GatewayThread) -> None:
    route = gateway.open_route("task-1", source=ToolThenText())
    message = _client(route.base_url).messages.create(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL])
    assert message.model == MODEL  # the agent sees the model it asked for
    (call,) = route.calls
    assert call.model == "scripted" and call.token_usage.total_cost_usd == 0.0 and route.cost_usd == 0.0


# -- record, replay, direct ------------------------------------------------------------------------


def _session(route: Route) -> list[Any]:
    """A fixed sequence of calls; what each returned, in a comparable form (raw bytes where raw)."""
    client = _client(route.base_url)
    out: list[Any] = []
    try:
        client.messages.create(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL])
    except anthropic.RateLimitError as exc:
        out.append((exc.status_code, exc.body))
    with client.messages.stream(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL]) as stream:
        first = stream.get_final_message()
    out.append(first.model_dump())
    for stream_flag in (True, False):
        body = {"model": MODEL, "max_tokens": 256, "messages": _tool_result_turn(first), "tools": [WRITE_TOOL]}
        out.append(_http("POST", f"{route.base_url}/v1/messages?beta=true", {**body, "stream": stream_flag}))
    return out


def _provider_source() -> Scripted:
    tool = ToolCall("toolu_01", "Write", {"file_path": "a.txt", "content": "hi"})
    return Scripted(
        GatewayError(429, "slow down"),
        ModelReply(tool_calls=[tool], model=MODEL),
        ModelReply(text="Done, streamed. " * 8, model=MODEL),
        ModelReply(text="Done.", usage=Usage(50, 7, 10, 1000), model=MODEL),
    )


def test_record_then_replay_offline(tmp_path: Path) -> None:
    with GatewayThread("script") as provider:
        upstream = provider.open_route("provider", source=_provider_source())
        upstreams = {"anthropic": upstream.base_url}
        with GatewayThread("record", cassette_dir=tmp_path, upstreams=upstreams) as recorder:
            route = recorder.open_route("task-1/turn-1")
            recorded = _session(route)
            recorded_calls = list(route.calls)
    entries = sorted(p.name for p in (tmp_path / "task-1__turn-1").iterdir())
    assert entries == ["001.json", "002.json", "003.json", "004.json"]
    entry = json.loads((tmp_path / "task-1__turn-1" / "002.json").read_text())
    assert (entry["protocol"], entry["method"], entry["path"], entry["status"]) == (
        "anthropic",
        "POST",
        "/v1/messages",
        200,
    )
    assert entry["content_type"].startswith("text/event-stream") and "response_text" in entry
    assert entry["request"]["model"] == MODEL
    assert _without_latency(recorded_calls) == _without_latency(upstream.calls)  # the proxy saw what the provider did
    assert [c.status for c in recorded_calls] == [429, 200, 200, 200]
    assert recorded_calls[3].token_usage.cache_read_input_tokens == 1000

    with GatewayThread("replay", cassette_dir=tmp_path) as replayer:  # the provider is gone
        route = replayer.open_route("task-1/turn-1")
        assert _session(route) == recorded
        assert _without_latency(route.calls) == _without_latency(recorded_calls)
        with pytest.raises(anthropic.InternalServerError, match=r"005\.json"):
            _client(route.base_url).messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
        missing = replayer.open_route("never-recorded")
        with pytest.raises(anthropic.InternalServerError, match="never-recorded"):
            _client(missing.base_url).messages.create(model=MODEL, max_tokens=5, messages=PROMPT)


def test_record_and_replay_need_a_cassette_dir_and_unique_keys(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cassette_dir"):
        GatewayThread("replay")
    with GatewayThread("replay", cassette_dir=tmp_path) as replayer:
        replayer.open_route("task-1")
        with pytest.raises(ValueError, match="already open"):
            replayer.open_route("task-1")


def test_direct_mode_proxies_to_a_second_gateway() -> None:
    with GatewayThread("script") as provider:
        upstream = provider.open_route("provider", source=ToolThenText(billed_model=MODEL))
        with GatewayThread("direct", upstreams={"anthropic": upstream.base_url}) as direct:
            route = direct.open_route("task-1")
            client = _client(route.base_url)
            with client.messages.stream(model=MODEL, max_tokens=256, messages=PROMPT, tools=[WRITE_TOOL]) as stream:
                first = stream.get_final_message()
            second = client.messages.create(
                model=MODEL, max_tokens=256, messages=_tool_result_turn(first), tools=[WRITE_TOOL]
            )
            assert second.content[0].type == "text" and second.content[0].text == "Done: written"
            assert _without_latency(route.calls) == _without_latency(upstream.calls)
            assert route.calls[0].token_usage.uncached_input_tokens == first.usage.input_tokens
            assert route.calls[0].model == MODEL and route.calls[0].token_usage.total_cost_usd is not None


def test_direct_mode_with_unreachable_upstream_is_a_502() -> None:
    with GatewayThread("direct", upstreams={"anthropic": "http://127.0.0.1:9"}) as direct:
        route = direct.open_route("task-1")
        with pytest.raises(anthropic.InternalServerError) as info:
            _client(route.base_url).messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
        assert info.value.status_code == 502
        assert route.calls[0].status == 502


class _CapturingUpstream(BaseHTTPRequestHandler):
    """A provider stand-in that remembers what it was sent and answers one fixed message."""

    seen: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []
    answer = json.dumps(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-5-20251101",
            "content": [{"type": "text", "text": "real"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 3, "cache_read_input_tokens": 100},
        }
    ).encode()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.answer)))
        self.end_headers()
        self.wfile.write(self.answer)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean."""


@pytest.fixture
def capturing_upstream() -> Iterator[str]:
    _CapturingUpstream.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CapturingUpstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/base"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_direct_mode_puts_in_the_real_key_and_never_forwards_the_token(capturing_upstream: str) -> None:
    keys = {"anthropic": "sk-real"}
    with GatewayThread("direct", upstreams={"anthropic": capturing_upstream}, api_keys=keys) as direct:
        route = direct.open_route("task-1")
        in_path = _client(route.base_url, api_key="dummy").messages.create(model=MODEL, max_tokens=5, messages=PROMPT)
        as_key = _client(direct.base_url, api_key=route.token).messages.create(
            model=MODEL, max_tokens=5, messages=PROMPT
        )
        assert "sk-real" not in repr(direct.gateway)
    assert in_path.content[0].type == "text" and in_path.content[0].text == "real"
    assert as_key.usage.cache_read_input_tokens == 100
    for path, headers, body in _CapturingUpstream.seen:
        assert path == "/base/v1/messages"
        assert headers["x-api-key"] == "sk-real"
        assert route.token not in json.dumps(headers)
        assert json.loads(body)["messages"] == PROMPT
    assert len(_CapturingUpstream.seen) == 2
    record = route.calls[0]
    assert record.model == "claude-opus-4-5-20251101"  # the model the provider says answered
    assert (record.token_usage.uncached_input_tokens, record.token_usage.cache_read_input_tokens) == (12, 100)
    assert record.token_usage.total_cost_usd == pytest.approx(calculate_cost("claude-opus-4-5", 12, 3, 0, 100))
