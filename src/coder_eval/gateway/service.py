"""The gateway server itself: one aiohttp endpoint on 127.0.0.1 that every agent of a run talks to.

Per request: answer probes, attribute the request to its route (`routes.py`), find the wire
protocol that owns the path (`protocol.py`), refuse it when the route has spent its budget,
then answer by mode:

- `script`: the route's ReplySource produces the reply, the wire protocol renders it;
- `direct`: relay to the provider (`proxy.py`), usage read from its response;
- `record`: like direct, and every exchange is saved as a cassette entry (`cassettes.py`);
- `replay`: serve the route's cassette entries in order, byte for byte.

Every model call becomes a ProviderCallCost on its route, recorded before the agent has the
end of the response, so whoever reads the route once the agent is done finds the call there.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import aiohttp
from aiohttp import web

from coder_eval.gateway import proxy
from coder_eval.gateway.budget import Budget
from coder_eval.gateway.cassettes import CassetteStore, cassette_dir_name, recorded_body
from coder_eval.gateway.protocol import WireProtocol, protocol_for
from coder_eval.gateway.provider_router import ProviderRouter
from coder_eval.gateway.providers import ProviderSet, Resolution, RouteHints
from coder_eval.gateway.routes import ModelCall, Route, RouteTable, split_token
from coder_eval.gateway.source import ReplySource
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, Usage
from coder_eval.gateway.usage import call_cost, estimate_usage, has_tokens, token_usage
from coder_eval.models.telemetry import ProviderCallCost

log = logging.getLogger(__name__)

Mode = Literal["script", "direct", "record", "replay"]
MODES: tuple[Mode, ...] = ("script", "direct", "record", "replay")
HOST = "127.0.0.1"
_PROBES = frozenset({("HEAD", "/"), ("GET", "/"), ("HEAD", "/api/hello"), ("GET", "/api/hello")})
_MAX_BODY = 256 * 1024 * 1024  # agents resend the whole conversation; bodies of many MB are normal


@runtime_checkable
class AnswersLocally(Protocol):
    """A protocol that answers some requests itself, with no model call (e.g. Anthropic count_tokens)."""

    def local_response(self, path: str, body: dict[str, Any]) -> web.Response | None:
        """The answer, or None when `path` is a model call."""
        ...


def _generic_error(status: int, kind: str, message: str) -> web.Response:
    """An error for requests no protocol owns (Anthropic-shaped, the most common client)."""
    return web.json_response({"type": "error", "error": {"type": kind, "message": message}}, status=status)


class Gateway:
    """The async gateway server. Start it, open a route per task/turn, hand the agent `route.base_url`.

    In direct and record mode each call goes to the provider `providers` resolves for it
    (`providers.py`), with the credential read from `env`, a snapshot of the harness's own
    environment (never the unit's). `upstreams` and `api_keys` pin a protocol's base URL and key
    by protocol name over whatever the resolution says (tests, and plugin protocols without a
    profile). The agent's own (dummy) key is never forwarded. Record and replay need `cassette_dir`.
    """

    def __init__(
        self,
        mode: Mode,
        *,
        cassette_dir: Path | None = None,
        upstreams: dict[str, str] | None = None,
        api_keys: dict[str, str] | None = None,
        providers: ProviderSet | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown gateway mode {mode!r}; expected one of {', '.join(MODES)}")
        if mode in ("record", "replay") and cassette_dir is None:
            raise ValueError(f"gateway mode {mode!r} needs a cassette_dir")
        self.mode: Mode = mode
        self.cassette_dir = cassette_dir
        self._cassettes = CassetteStore(cassette_dir) if cassette_dir is not None else None
        self._router = ProviderRouter(providers, dict(env or {}), dict(upstreams or {}), dict(api_keys or {}))
        self._routes = RouteTable()
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
            self._session = aiohttp.ClientSession(timeout=proxy.UPSTREAM_TIMEOUT, trust_env=False)

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
        upstream: bool = False,
        hints: RouteHints | None = None,
    ) -> Route:
        """A new route for `key` (thread-safe). In record/replay the key names the cassette, so it must be unique.

        `upstream`: `source` relays a real provider the gateway has no protocol for (see Route.upstream)."""
        cassette_dir_name(key)  # reject keys that cannot name a directory early
        unique = self.mode in ("record", "replay")
        return self._routes.open(
            key,
            self.base_url,
            unique_key=unique,
            source=source,
            budget=budget,
            model_hint=model_hint,
            workdir=workdir,
            upstream=upstream,
            hints=hints,
        )

    def close_route(self, route: Route) -> None:
        """Forget `route`; later requests with its token get 404 (thread-safe, idempotent)."""
        self._routes.close(route)

    def cassette_path(self, key: str, index: int) -> Path:
        """Where exchange `index` (1-based) of route `key` is kept."""
        assert self._cassettes is not None
        return self._cassettes.path(key, index)

    async def _handle(self, http: web.Request) -> web.StreamResponse:
        """Route one HTTP request: probes, attribution, local answers, then a model call."""
        started = time.perf_counter()
        token, path = split_token(http.path)
        if (http.method, path) in _PROBES and (token is None or self._routes.get(token) is not None):
            return web.Response(status=200)
        protocol = protocol_for(http.method, path)
        route, key_source = self._routes.attribute(http, token)
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
        return await self._serve(ModelCall(route, protocol, http, path, raw, body, started, key_source))

    async def _serve(self, call: ModelCall) -> web.StreamResponse:
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
        if call.route.upstream and call.route.source is not None:
            return await self._serve_script(call, upstream=True)
        return await self._serve_proxy(call)

    def _check_budget(self, call: ModelCall) -> web.Response | None:
        """Refuse the call when the route has already spent its budget."""
        route = call.route
        if route.budget is None:
            return None
        breach = route.budget.exceeded(route.usage, route.priced_usd)
        if breach is None:
            return None
        route.budget_exceeded, reason = breach
        return self._fail(call, GatewayError(400, f"coder-eval budget exceeded: {reason}", "invalid_request_error"))

    def _fail(self, call: ModelCall, err: GatewayError) -> web.Response:
        """Answer `err` in the call's protocol and record it."""
        self._finish(call, status=err.status, usage=Usage(), model=call.model, error=err.message)
        return call.protocol.error(err)

    def _finish(
        self,
        call: ModelCall,
        *,
        status: int,
        usage: Usage,
        model: str | None,
        error: str | None,
        cost: float | None = None,
    ) -> None:
        """Record the call on its route and tell the route's hook (`cost`: the upstream's own bill, if known)."""
        record = ProviderCallCost(
            protocol=call.protocol.name,
            provider=call.provider,
            model=model,
            latency_ms=round((time.perf_counter() - call.started) * 1000, 3),
            token_usage=token_usage(usage, cost if cost is not None else call_cost(model, usage)),
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

    def _finish_exchange(self, call: ModelCall, exchange: proxy.Exchange) -> None:
        """Record a proxied or replayed exchange, usage read from the body as the agent got it."""
        usage, model = call.protocol.usage_from_response(exchange.body, streamed=exchange.streamed)
        self._finish(call, status=exchange.status, usage=usage, model=model or call.model, error=exchange.error)

    # -- script -------------------------------------------------------------------------------

    async def _serve_script(self, call: ModelCall, *, upstream: bool = False) -> web.StreamResponse:
        """Ask the route's source for the reply and render it in the call's protocol (and, for an
        upstream source in record mode, keep it as a cassette)."""
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
        self._finish(call, status=200, usage=reply.usage, model=billed_model, error=None, cost=reply.cost_usd)
        if upstream and self.mode == "record":
            await asyncio.to_thread(self._save_reply, call, request, reply)
        try:
            return await call.protocol.respond(call.http, request, reply)
        except ConnectionError:
            log.debug("agent of route %s disconnected during a scripted reply", call.route.key)
            return web.Response(status=499)  # never sent: aiohttp drops it quietly on the closed connection

    def _save_reply(self, call: ModelCall, request: ModelRequest, reply: ModelReply) -> None:
        """Keep an upstream source's answer as a cassette, as one JSON body (replay serves it as recorded)."""
        assert self._cassettes is not None
        rendered = call.protocol.render_body(request, reply)
        if rendered is None:
            return
        body = json.dumps(rendered).encode()
        exchange = proxy.Exchange(web.StreamResponse(), 200, "application/json", body)
        self._cassettes.save(call, call.route.next_index(), exchange)

    @staticmethod
    def _complete(call: ModelCall, request: ModelRequest, reply: ModelReply) -> ModelReply:
        """Fill in what the source left out: the model (the one asked for) and estimated usage."""
        model = reply.model if reply.model and reply.model != "scripted" else (call.model or "scripted")
        usage = reply.usage if has_tokens(reply.usage) else estimate_usage(request, reply)
        return replace(reply, model=model, usage=usage)

    # -- direct / record / replay ---------------------------------------------------------------

    def resolve_for(self, protocol: WireProtocol, model: str | None, hints: RouteHints | None = None) -> Resolution:
        """Where a call of `protocol` for `model` would go (`provider_router.py`)."""
        return self._router.resolve_for(protocol, model, hints)

    async def _send(self, call: ModelCall) -> proxy.Exchange | web.Response:
        """Send `call` where it resolves (a protocol no profile serves uses its own declarations)."""
        assert self._session is not None, "proxy modes open an upstream session on start"
        res = self._router.resolution(call)
        if res.profile is None:  # a plugin's protocol: its own upstream and key variables
            base, key = self._router.plugin_upstream(call)
            return await proxy.forward(self._session, call, base, key)
        call.provider = res.provider
        if res.base_url is None:
            message = f"coder-eval gateway: {'; '.join(res.problems)}"
            return self._fail(call, GatewayError(500, message, "api_error"))
        built = self._router.request(res, call, proxy.forwardable_headers(call))
        return await proxy.send(self._session, call, built)

    async def _serve_proxy(self, call: ModelCall) -> web.StreamResponse:
        """Forward to the provider, stream its answer through, record usage (and the cassette)."""
        index = call.route.next_index()
        try:
            exchange = await self._send(call)
            if isinstance(exchange, web.Response):
                return exchange
        except (TimeoutError, aiohttp.ClientError) as exc:
            # Nothing reached the agent yet: answer as the provider's gateway error.
            return self._fail(call, GatewayError(502, f"upstream unreachable: {type(exc).__name__}", "api_error"))
        self._finish_exchange(call, exchange)
        if self.mode == "record":
            assert self._cassettes is not None
            await asyncio.to_thread(self._cassettes.save, call, index, exchange)
        if exchange.connected:
            await proxy.end(exchange.response)
        return exchange.response

    async def _serve_replay(self, call: ModelCall) -> web.StreamResponse:
        """Serve the route's next cassette entry exactly as it was recorded."""
        assert self._cassettes is not None
        path = self._cassettes.path(call.route.key, call.route.next_index())
        entry = await asyncio.to_thread(CassetteStore.load, path)
        if entry is None:
            return self._fail(call, GatewayError(500, f"replay cassette missing or unreadable: {path}", "api_error"))
        if entry.get("protocol") != call.protocol.name:
            message = f"replay cassette {path} holds a {entry.get('protocol')!r} call, not {call.protocol.name!r}"
            return self._fail(call, GatewayError(500, message, "api_error"))
        body = recorded_body(entry, call)
        content_type = str(entry.get("content_type") or "application/json")
        status = int(entry.get("status", 200))
        response = web.StreamResponse(status=status, headers={"Content-Type": content_type})
        exchange = proxy.Exchange(response, status, content_type, body, proxy.error_text(status, body))
        exchange.connected = await proxy.send_recorded(call, exchange)
        if not exchange.connected:
            exchange.error = "client disconnected"
        self._finish_exchange(call, exchange)  # before the end of the response, as in _serve_proxy
        if exchange.connected:
            await proxy.end(response)
        return response
