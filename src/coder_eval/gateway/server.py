"""The model gateway server: one local HTTP endpoint every agent of a run talks to.

Each task/turn opens a Route with a random, unguessable token; the agent gets
`route.base_url` (`http://127.0.0.1:<port>/t/<token>`) and appends its API paths to
it. Attribution is only ever by that token. Clients that cannot set a base path
may instead send the token as their API key (`x-api-key`, `Authorization: Bearer`,
`x-goog-api-key`, or Gemini's `?key=`) against the bare `http://127.0.0.1:<port>`.

Modes:
- `script`: the route's ReplySource produces each reply, the wire protocol renders it.
- `direct`: proxy to the provider (streamed through), usage read from the response.
- `record`: like direct, and every exchange is saved as a cassette entry.
- `replay`: serve the route's cassette entries in order, byte for byte.

Every model call becomes a ProviderCallCost on its route. Budgets are checked
before each call, so a route that has spent its budget is refused mid-turn.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import secrets
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable
from urllib.parse import urlencode

import aiohttp
from aiohttp import web

from coder_eval.gateway.protocol import WireProtocol, protocol_for
from coder_eval.gateway.script import cwd_from_request
from coder_eval.gateway.source import Budget, BudgetKind, ReplySource
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, Usage
from coder_eval.models.telemetry import ProviderCallCost, TokenUsage
from coder_eval.pricing import calculate_cost

__all__ = ["Budget", "CallHook", "Gateway", "GatewayThread", "Mode", "ReplySource", "Route"]

log = logging.getLogger(__name__)

Mode = Literal["script", "direct", "record", "replay"]
CallHook = Callable[[ProviderCallCost], None]
T = TypeVar("T")

MODES: tuple[Mode, ...] = ("script", "direct", "record", "replay")
HOST = "127.0.0.1"
_TOKEN_PREFIX = "/t/"
_PROBES = frozenset({("HEAD", "/"), ("GET", "/"), ("HEAD", "/api/hello"), ("GET", "/api/hello")})
# Headers that describe one hop, not the exchange; aiohttp sets its own.
_HOP_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "connection",
        "keep-alive",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
        "proxy-authorization",
        "proxy-connection",
        "accept-encoding",
    }
)
_DROP_RESPONSE_HEADERS = frozenset(
    {"content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive", "date", "server"}
)
_KEY_QUERY = "?key"  # marks attribution by Gemini's `?key=` query parameter
_ERROR_TEXT_LIMIT = 500
_UPSTREAM_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=600)
_MAX_BODY = 256 * 1024 * 1024  # agents resend the whole conversation; bodies of many MB are normal
_REPLAY_CHUNK = 16 * 1024


@runtime_checkable
class AnswersLocally(Protocol):
    """A protocol that answers some requests itself, with no model call (e.g. Anthropic count_tokens)."""

    def local_response(self, path: str, body: dict[str, Any]) -> web.Response | None:
        """The answer, or None when `path` is a model call."""
        ...


@dataclass(eq=False)
class Route:
    """One attributed channel (a task or a turn): its token, reply source, budget and call records.

    `calls` grows on the gateway's thread; readers on other threads see whole records.
    `events`, when set, is called on the gateway's thread with each record as it completes,
    so it must be quick and must not block.
    """

    key: str
    token: str
    base_url: str
    source: ReplySource | None = None
    budget: Budget | None = None
    model_hint: str | None = None
    """Model to record and price when a request names none."""
    events: CallHook | None = None
    workdir: str | None = None
    """The agent's working directory. Cassettes note it, and replay moves recorded paths onto the new one."""
    calls: list[ProviderCallCost] = field(default_factory=list)
    budget_exceeded: BudgetKind | None = None
    _served: int = field(default=0, init=False, repr=False)

    @property
    def usage(self) -> TokenUsage:
        """Token totals of every call so far; `total_cost_usd` is `cost_usd`."""
        total = TokenUsage()
        for call in list(self.calls):
            total = total + call.token_usage
        return total.model_copy(update={"total_cost_usd": self.cost_usd})

    @property
    def cost_usd(self) -> float | None:
        """USD spent so far; None once any call could not be priced."""
        costs = [c.token_usage.total_cost_usd for c in list(self.calls)]
        if any(c is None for c in costs):
            return None
        return sum(c for c in costs if c is not None)

    @property
    def priced_usd(self) -> float:
        """USD of the calls that could be priced (what a USD budget can enforce)."""
        return sum(c.token_usage.total_cost_usd or 0.0 for c in list(self.calls))

    def next_index(self) -> int:
        """The 1-based number of the next proxied or replayed exchange (its cassette entry)."""
        self._served += 1
        return self._served


@dataclass
class _Call:
    """One model call in flight: where it came from and what it asked."""

    route: Route
    protocol: WireProtocol
    http: web.Request
    path: str
    raw: bytes
    body: dict[str, Any]
    started: float
    key_source: str | None
    request: ModelRequest | None = None

    @property
    def model(self) -> str | None:
        """The model the request names, else the route's hint."""
        named = self.request.model if self.request is not None else self.body.get("model")
        return named if isinstance(named, str) and named else self.route.model_hint

    @property
    def side_call(self) -> bool:
        """A call offering no tools (titles, summaries): it does not advance the agent's work."""
        if self.request is not None:
            return not self.request.tools
        return not self.body.get("tools")


@dataclass
class _Exchange:
    """A proxied or replayed response as the agent received it."""

    response: web.StreamResponse
    status: int
    content_type: str
    body: bytes
    error: str | None = None
    connected: bool = True

    @property
    def streamed(self) -> bool:
        """Whether the body is an SSE stream."""
        return self.content_type.startswith("text/event-stream")


def _split_token(path: str) -> tuple[str | None, str]:
    """(`token`, rest) for `/t/<token>/rest`; (None, path) without the prefix."""
    if not path.startswith(_TOKEN_PREFIX):
        return None, path
    token, _, rest = path[len(_TOKEN_PREFIX) :].partition("/")
    return token, "/" + rest


def _key_candidates(http: web.Request) -> Iterator[tuple[str, str]]:
    """(where, value) of every credential the client sent, for token-as-key attribution."""
    for header in ("x-api-key", "x-goog-api-key"):
        value = http.headers.get(header)
        if value:
            yield header, value
    auth = http.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        yield "authorization", auth[7:].strip()
    if http.query.get("key"):
        yield _KEY_QUERY, http.query["key"]


def _generic_error(status: int, kind: str, message: str) -> web.Response:
    """An error for requests no protocol owns (Anthropic-shaped, the most common client)."""
    return web.json_response({"type": "error", "error": {"type": kind, "message": message}}, status=status)


def _estimate_usage(request: ModelRequest, reply: ModelReply) -> Usage:
    """Deterministic token counts for a reply that brought none: four characters of JSON per token."""
    produced = len(reply.text) + sum(len(json.dumps(c.arguments)) for c in reply.tool_calls)
    return Usage(input_tokens=max(1, len(json.dumps(request.raw)) // 4), output_tokens=max(1, produced // 4))


def _has_tokens(usage: Usage) -> bool:
    """Whether a call used any tokens at all."""
    return usage.total > 0 or usage.reasoning_tokens > 0


def _token_usage(usage: Usage, cost: float | None) -> TokenUsage:
    """The record's TokenUsage for a call's Usage and cost."""
    return TokenUsage(
        uncached_input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_creation_input_tokens=usage.cache_creation_input_tokens,
        cache_read_input_tokens=usage.cache_read_input_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        total_cost_usd=cost,
    )


def _cost(model: str | None, usage: Usage) -> float | None:
    """USD of one call; a call that used no tokens cost nothing, even on a model the rate card does not know."""
    if not _has_tokens(usage):
        return 0.0
    return calculate_cost(
        model, usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens
    )


def _error_text(status: int, body: bytes) -> str | None:
    """The error message of an error body for the call record (None for a success).

    Anthropic, OpenAI and Gemini all answer `{"error": {"message": ...}}`; anything else is kept as text.
    """
    if status < 400:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])[:_ERROR_TEXT_LIMIT]
    return body[:_ERROR_TEXT_LIMIT].decode("utf-8", errors="replace") or f"HTTP {status}"


async def _write(response: web.StreamResponse, data: bytes) -> bool:
    """Write to the agent; False when it has gone away (a disconnect is not an error of ours)."""
    try:
        await response.write(data)
    except ConnectionError:
        return False
    return True


async def _begin(response: web.StreamResponse, http: web.Request) -> bool:
    """Send the status and headers; False when the agent has gone away."""
    try:
        await response.prepare(http)
    except ConnectionError:
        return False
    return True


async def _end(response: web.StreamResponse) -> None:
    """Finish the response; an agent that already left is ignored."""
    with contextlib.suppress(ConnectionError):
        await response.write_eof()


def _sse_chunks(body: bytes) -> Iterator[bytes]:
    """An SSE body cut at event boundaries, so a replayed stream arrives event by event."""
    start = 0
    while start < len(body):
        end = body.find(b"\n\n", start)
        end = len(body) if end < 0 else end + 2
        yield body[start:end]
        start = end


def _plain_chunks(body: bytes) -> Iterator[bytes]:
    """A non-stream body in fixed-size pieces."""
    for start in range(0, len(body), _REPLAY_CHUNK):
        yield body[start : start + _REPLAY_CHUNK]


def _workdir(call: _Call) -> str | None:
    """The agent's working directory: the route's, else as the agent's prompt states it."""
    if call.route.workdir:
        return call.route.workdir
    return cwd_from_request(call.request) if call.request is not None else None


def _rebase(body: bytes, recorded: Any, current: str | None) -> bytes:
    """A recorded body with the recorded run's working directory replaced by this run's.

    Agents such as Claude Code write with absolute paths, so a cassette replayed as recorded
    would send the new run's tools into the old run's sandbox. Only a path that appears whole
    in the body is moved (a stream that splits it over several deltas keeps the old path).
    """
    if not isinstance(recorded, str) or not recorded or not current or recorded == current:
        return body
    moved = body.replace(recorded.encode("utf-8"), current.encode("utf-8"))
    escaped_old, escaped_new = json.dumps(recorded)[1:-1], json.dumps(current)[1:-1]
    if escaped_old != recorded:
        moved = moved.replace(escaped_old.encode("utf-8"), escaped_new.encode("utf-8"))
    return moved


def cassette_dir_name(key: str) -> str:
    """The directory name of a route key's cassette: `/` becomes `__`."""
    name = key.replace("/", "__").replace("\\", "__")
    if name in ("", ".", ".."):
        raise ValueError(f"route key {key!r} cannot name a cassette directory")
    return name


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON so a reader never sees half a file (temp file in the same directory, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _load_json(path: Path) -> dict[str, Any] | None:
    """A cassette entry, or None when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _encode_body(body: bytes) -> dict[str, str]:
    """A response body as cassette fields: text when it is UTF-8 (round-trips exactly), else base64."""
    try:
        return {"response_text": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"response_base64": base64.b64encode(body).decode("ascii")}


def _decode_body(entry: dict[str, Any]) -> bytes:
    """The response bytes of a cassette entry."""
    if isinstance(entry.get("response_base64"), str):
        return base64.b64decode(entry["response_base64"])
    text = entry.get("response_text", "")
    return text.encode("utf-8") if isinstance(text, str) else b""


class Gateway:
    """The async gateway server. Start it, open a route per task/turn, hand the agent `route.base_url`.

    `upstreams` overrides a protocol's provider base URL by protocol name (direct/record),
    `api_keys` gives the real key per protocol name; the agent's own (dummy) key is
    replaced by it. Record and replay need `cassette_dir`.
    """

    def __init__(
        self,
        mode: Mode,
        *,
        cassette_dir: Path | None = None,
        upstreams: dict[str, str] | None = None,
        api_keys: dict[str, str] | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown gateway mode {mode!r}; expected one of {', '.join(MODES)}")
        if mode in ("record", "replay") and cassette_dir is None:
            raise ValueError(f"gateway mode {mode!r} needs a cassette_dir")
        self.mode: Mode = mode
        self.cassette_dir = cassette_dir
        self._upstreams = dict(upstreams or {})
        self._api_keys = dict(api_keys or {})
        self._routes: dict[str, Route] = {}
        self._lock = threading.Lock()
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._port: int | None = None

    def __repr__(self) -> str:  # never show api_keys
        return f"Gateway(mode={self.mode!r}, port={self._port})"

    @property
    def port(self) -> int:
        """The bound port (after start)."""
        if self._port is None:
            raise RuntimeError("the gateway is not started")
        return self._port

    @property
    def base_url(self) -> str:
        """The bare server URL (token-as-key clients use it; everyone else a route's base_url)."""
        return f"http://{HOST}:{self.port}"

    async def start(self) -> None:
        """Bind 127.0.0.1 on a free port and start serving."""
        if self._runner is not None:
            raise RuntimeError("the gateway is already started")
        app = web.Application(client_max_size=_MAX_BODY)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=5.0)
        await runner.setup()
        site = web.TCPSite(runner, HOST, 0)
        await site.start()
        self._runner = runner
        self._port = runner.addresses[0][1]
        if self.mode in ("direct", "record"):
            self._session = aiohttp.ClientSession(timeout=_UPSTREAM_TIMEOUT, trust_env=False)

    async def stop(self) -> None:
        """Stop serving and close upstream connections (idempotent)."""
        runner, self._runner = self._runner, None
        session, self._session = self._session, None
        if runner is not None:
            await runner.cleanup()
        if session is not None:
            await session.close()

    def open_route(
        self,
        key: str,
        *,
        source: ReplySource | None = None,
        budget: Budget | None = None,
        model_hint: str | None = None,
        workdir: str | None = None,
    ) -> Route:
        """A new route for `key` (thread-safe). In record/replay the key names the cassette, so it must be unique."""
        cassette_dir_name(key)  # reject keys that cannot name a directory early
        with self._lock:
            if self.mode in ("record", "replay") and any(r.key == key for r in self._routes.values()):
                raise ValueError(f"a route for {key!r} is already open; its cassette would be shared")
            token = secrets.token_urlsafe(24)
            route = Route(key, token, f"{self.base_url}/t/{token}", source, budget, model_hint, workdir=workdir)
            self._routes[token] = route
        return route

    def close_route(self, route: Route) -> None:
        """Forget `route`; later requests with its token get 404 (thread-safe, idempotent)."""
        with self._lock:
            self._routes.pop(route.token, None)

    def _route(self, token: str | None) -> Route | None:
        """The open route with this token, if any."""
        return self._routes.get(token) if token else None

    def _attribute(self, http: web.Request, token: str | None) -> tuple[Route | None, str | None]:
        """The route a request belongs to, and where its token was read when it was not in the path."""
        if token is not None:
            return self._route(token), None
        for where, value in _key_candidates(http):
            route = self._route(value)
            if route is not None:
                return route, where
        return None, None

    async def _handle(self, http: web.Request) -> web.StreamResponse:
        """Route one HTTP request: probes, attribution, local answers, then a model call."""
        started = time.perf_counter()
        token, path = _split_token(http.path)
        if (http.method, path) in _PROBES and (token is None or self._route(token) is not None):
            return web.Response(status=200)
        protocol = protocol_for(http.method, path)
        route, key_source = self._attribute(http, token)
        if route is None:
            err = GatewayError(404, "unknown coder-eval gateway route (no valid token)", "not_found_error")
            return protocol.error(err) if protocol else _generic_error(404, err.kind, err.message)
        if protocol is None:
            return _generic_error(404, "not_found_error", f"the gateway serves no API at {http.method} {path}")
        raw = await http.read()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return protocol.error(GatewayError(400, "request body is not a JSON object", "invalid_request_error"))
        if isinstance(protocol, AnswersLocally):
            local = protocol.local_response(path, body)
            if local is not None:
                return local
        call = _Call(route, protocol, http, path, raw, body, started, key_source)
        return await self._serve(call)

    async def _serve(self, call: _Call) -> web.StreamResponse:
        """Parse, check the budget, then answer by mode."""
        try:
            call.request = call.protocol.parse(call.path, dict(call.http.query), call.body)
        except GatewayError as err:
            # The provider is the judge of what it can read; only the scripted model needs a parse.
            if self.mode == "script":
                return self._fail(call, err)
        refusal = self._check_budget(call)
        if refusal is not None:
            return refusal
        if self.mode == "script":
            return await self._serve_script(call)
        if self.mode == "replay":
            return await self._serve_replay(call)
        return await self._serve_proxy(call)

    def _check_budget(self, call: _Call) -> web.Response | None:
        """Refuse the call when the route has already spent its budget."""
        route = call.route
        if route.budget is None:
            return None
        breach = route.budget.exceeded(route.usage, route.priced_usd)
        if breach is None:
            return None
        route.budget_exceeded, reason = breach
        return self._fail(call, GatewayError(400, f"coder-eval budget exceeded: {reason}", "invalid_request_error"))

    def _fail(self, call: _Call, err: GatewayError) -> web.Response:
        """Answer `err` in the call's protocol and record it."""
        self._finish(call, status=err.status, usage=Usage(), model=call.model, error=err.message)
        return call.protocol.error(err)

    def _finish(self, call: _Call, *, status: int, usage: Usage, model: str | None, error: str | None) -> None:
        """Record the call on its route and tell the route's hook."""
        record = ProviderCallCost(
            protocol=call.protocol.name,
            model=model,
            latency_ms=round((time.perf_counter() - call.started) * 1000, 3),
            token_usage=_token_usage(usage, _cost(model, usage)),
            status=status,
            error=error,
            side_call=call.side_call,
        )
        call.route.calls.append(record)
        hook = call.route.events
        if hook is not None:
            try:
                hook(record)
            except Exception:  # a broken observer must not break the agent's call
                log.exception("gateway call hook of route %s failed", call.route.key)

    # -- script -------------------------------------------------------------------------------

    async def _serve_script(self, call: _Call) -> web.StreamResponse:
        """Ask the route's source for the reply and render it in the call's protocol."""
        source, request = call.route.source, call.request
        if source is None or request is None:
            return self._fail(call, GatewayError(500, f"route {call.route.key!r} has no reply source", "api_error"))
        try:
            reply = await source.reply(request)
        except GatewayError as err:
            return self._fail(call, err)
        except Exception as exc:
            log.exception("reply source of route %s failed", call.route.key)
            return self._fail(call, GatewayError(500, f"reply source failed: {exc}", "api_error"))
        billed_model = reply.model or "scripted"  # a scripted reply costs what its script says: 0 by default
        reply = self._complete(call, request, reply)
        # Recorded before rendering (the usage is already known), so the record exists by the
        # time the agent has the whole response; rendering a scripted reply takes microseconds.
        self._finish(call, status=200, usage=reply.usage, model=billed_model, error=None)
        try:
            return await call.protocol.respond(call.http, request, reply)
        except ConnectionError:
            log.debug("agent of route %s disconnected during a scripted reply", call.route.key)
            return web.Response(status=499)  # never sent: aiohttp drops it quietly on the closed connection

    def _complete(self, call: _Call, request: ModelRequest, reply: ModelReply) -> ModelReply:
        """Fill in what the source left out: the model (the one asked for) and estimated usage."""
        model = reply.model if reply.model and reply.model != "scripted" else (call.model or "scripted")
        usage = reply.usage
        if not _has_tokens(usage):
            usage = _estimate_usage(request, reply)
        return replace(reply, model=model, usage=usage)

    # -- direct / record ------------------------------------------------------------------------

    def _upstream_url(self, call: _Call) -> str:
        """The provider URL for this call: upstream base, the agent's path and query."""
        base = self._upstreams.get(call.protocol.name, call.protocol.upstream).rstrip("/")
        if call.key_source == _KEY_QUERY:  # the token is not a key the provider knows
            query = urlencode([(k, v) for k, v in call.http.query.items() if k != "key"])
        else:
            query = call.http.query_string
        return base + call.path + (f"?{query}" if query else "")

    def _upstream_headers(self, call: _Call) -> dict[str, str]:
        """The agent's headers minus per-hop ones and the token-as-key, with the real key put in."""
        drop = _HOP_HEADERS | ({call.key_source} if call.key_source else set())
        headers = {k: v for k, v in call.http.headers.items() if k.lower() not in drop}
        return call.protocol.upstream_headers(headers, self._api_keys.get(call.protocol.name))

    async def _serve_proxy(self, call: _Call) -> web.StreamResponse:
        """Forward to the provider, stream its answer through, record usage (and the cassette)."""
        assert self._session is not None, "proxy modes open an upstream session on start"
        index = call.route.next_index()
        try:
            async with self._session.request(
                call.http.method, self._upstream_url(call), data=call.raw, headers=self._upstream_headers(call)
            ) as upstream:
                exchange = await self._relay(call, upstream)
        except (TimeoutError, aiohttp.ClientError) as exc:
            # Nothing reached the agent yet: answer as the provider's gateway error.
            return self._fail(call, GatewayError(502, f"upstream unreachable: {type(exc).__name__}", "api_error"))
        # Record (and save the cassette) before the agent sees the end of the response: whoever
        # reads the route once the agent is done must find this call there.
        self._finish_exchange(call, exchange)
        if self.mode == "record":
            await asyncio.to_thread(self._save_entry, call, index, exchange)
        if exchange.connected:
            await _end(exchange.response)
        return exchange.response

    async def _relay(self, call: _Call, upstream: aiohttp.ClientResponse) -> _Exchange:
        """Copy the upstream response to the agent chunk by chunk while keeping the bytes; the caller ends it."""
        headers = {k: v for k, v in upstream.headers.items() if k.lower() not in _DROP_RESPONSE_HEADERS}
        response = web.StreamResponse(status=upstream.status, headers=headers)
        chunks: list[bytes] = []
        error: str | None = None
        connected = await _begin(response, call.http)
        try:
            async for chunk in upstream.content.iter_any():
                chunks.append(chunk)
                connected = connected and await _write(response, chunk)
                if not connected:
                    break
        except (TimeoutError, aiohttp.ClientError) as exc:
            error = f"upstream stream broke: {type(exc).__name__}"
        if not connected:
            error = error or "client disconnected"
        body = b"".join(chunks)
        error = error or _error_text(upstream.status, body)
        content_type = upstream.headers.get("Content-Type", "")
        return _Exchange(response, upstream.status, content_type, body, error, connected)

    def _finish_exchange(self, call: _Call, exchange: _Exchange) -> None:
        """Record a proxied or replayed exchange, usage read from the body as the agent got it."""
        usage, model = call.protocol.usage_from_response(exchange.body, streamed=exchange.streamed)
        self._finish(call, status=exchange.status, usage=usage, model=model or call.model, error=exchange.error)

    # -- cassettes ------------------------------------------------------------------------------

    def cassette_path(self, key: str, index: int) -> Path:
        """Where exchange `index` (1-based) of route `key` is kept."""
        assert self.cassette_dir is not None
        return self.cassette_dir / cassette_dir_name(key) / f"{index:03d}.json"

    def _save_entry(self, call: _Call, index: int, exchange: _Exchange) -> None:
        """Write this exchange as cassette entry `index` of the route's key."""
        entry: dict[str, Any] = {
            "protocol": call.protocol.name,
            "method": call.http.method,
            "path": call.path,
            "query": call.http.query_string,
            "request": call.body,
            "status": exchange.status,
            "content_type": exchange.content_type,
            "workdir": _workdir(call),
            **_encode_body(exchange.body),
        }
        _write_json_atomic(self.cassette_path(call.route.key, index), entry)

    async def _serve_replay(self, call: _Call) -> web.StreamResponse:
        """Serve the route's next cassette entry exactly as it was recorded."""
        path = self.cassette_path(call.route.key, call.route.next_index())
        entry = await asyncio.to_thread(_load_json, path)
        if entry is None:
            return self._fail(call, GatewayError(500, f"replay cassette missing or unreadable: {path}", "api_error"))
        if entry.get("protocol") != call.protocol.name:
            message = f"replay cassette {path} holds a {entry.get('protocol')!r} call, not {call.protocol.name!r}"
            return self._fail(call, GatewayError(500, message, "api_error"))
        body = _rebase(_decode_body(entry), entry.get("workdir"), _workdir(call))
        content_type = str(entry.get("content_type") or "application/json")
        status = int(entry.get("status", 200))
        response = web.StreamResponse(status=status, headers={"Content-Type": content_type})
        exchange = _Exchange(response, status, content_type, body, _error_text(status, body))
        exchange.connected = await self._write_all(call, response, exchange)
        if not exchange.connected:
            exchange.error = "client disconnected"
        self._finish_exchange(call, exchange)  # before the end of the response, as in _serve_proxy
        if exchange.connected:
            await _end(response)
        return response

    async def _write_all(self, call: _Call, response: web.StreamResponse, exchange: _Exchange) -> bool:
        """Send a recorded body, event by event when it is a stream; False if the agent went away."""
        if not await _begin(response, call.http):
            return False
        for chunk in (_sse_chunks if exchange.streamed else _plain_chunks)(exchange.body):
            if not await _write(response, chunk):
                return False
        return True


class GatewayThread:
    """A Gateway on its own event loop in a daemon thread, for synchronous callers and tests.

    Use as a context manager (or start()/stop()). open_route/close_route are thread-safe;
    reading a route's `calls` from another thread is safe (records are appended whole).
    """

    def __init__(
        self,
        mode: Mode = "script",
        *,
        cassette_dir: Path | None = None,
        upstreams: dict[str, str] | None = None,
        api_keys: dict[str, str] | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.gateway = Gateway(mode, cassette_dir=cassette_dir, upstreams=upstreams, api_keys=api_keys)
        self._timeout = timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> GatewayThread:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (after start)."""
        return self.gateway.port

    @property
    def base_url(self) -> str:
        """The bare server URL."""
        return self.gateway.base_url

    def start(self) -> None:
        """Start the loop thread and the server on it; returns once the port is bound."""
        if self._thread is not None:
            raise RuntimeError("the gateway thread is already started")
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=self._run_loop, args=(loop,), name="coder-eval-gateway", daemon=True)
        self._loop, self._thread = loop, thread
        thread.start()
        try:
            self.call(self.gateway.start())
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the server, then the loop, and join the thread (idempotent)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            if loop.is_running():
                self.call(self.gateway.stop())
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(self._timeout)
            self._loop, self._thread = None, None

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the gateway's loop and wait for its result."""
        if self._loop is None:
            coro.close()
            raise RuntimeError("the gateway thread is not started")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(self._timeout)

    def open_route(
        self,
        key: str,
        *,
        source: ReplySource | None = None,
        budget: Budget | None = None,
        model_hint: str | None = None,
        workdir: str | None = None,
    ) -> Route:
        """See Gateway.open_route."""
        return self.gateway.open_route(key, source=source, budget=budget, model_hint=model_hint, workdir=workdir)

    def close_route(self, route: Route) -> None:
        """See Gateway.close_route."""
        self.gateway.close_route(route)

    @staticmethod
    def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
        """The thread body: run the loop until stop() stops it, then close it."""
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
