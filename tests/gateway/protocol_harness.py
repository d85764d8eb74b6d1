"""A test-only stand-in for the gateway server: any wire protocol, replies from a scripted list.

`ScriptedServer` runs an aiohttp app on 127.0.0.1 (random port) in a background
thread. For every request it strips an optional `/t/<token>` prefix, finds the
protocol with `protocol_for`, parses, answers with the next scripted ModelReply
(or the protocol's error body for a scripted GatewayError) and records the parsed
request, so tests can drive the official SDK clients against each protocol.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from aiohttp import web

from coder_eval.gateway.protocol import protocol_for
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, Usage
from coder_eval.models.telemetry import TokenUsage

_TOKEN = re.compile(r"^/t/[^/]+(?=/)")


class ScriptedServer:
    """Serves scripted replies through the real wire protocols; `requests` holds what was parsed."""

    def __init__(self, script: Sequence[ModelReply | GatewayError]) -> None:
        self.script = list(script)
        self.requests: list[ModelRequest] = []
        self.paths: list[str] = []
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    async def _handle(self, http: web.Request) -> web.StreamResponse:
        """Route one request through its protocol."""
        path = _TOKEN.sub("", http.path)
        self.paths.append(path)
        proto = protocol_for(http.method, path)
        if proto is None:
            return web.json_response({"error": f"no protocol for {http.method} {path}"}, status=404)
        body = json.loads(await http.read() or b"{}")
        local = getattr(proto, "local_response", None)
        answer = local(path, body) if local is not None else None
        if answer is not None:
            return answer
        try:
            request = proto.parse(path, dict(http.query), body)
            self.requests.append(request)
            if not self.script:
                raise GatewayError(500, "script exhausted")
            step = self.script.pop(0)
            if isinstance(step, GatewayError):
                raise step
        except GatewayError as err:
            return proto.error(err)
        return await proto.respond(http, request, step)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    def start(self) -> ScriptedServer:
        """Start serving; `url` is set when this returns."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        """Stop serving and end the thread."""
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


@contextmanager
def scripted_server(*script: ModelReply | GatewayError) -> Iterator[ScriptedServer]:
    """A running ScriptedServer playing `script`, stopped on exit."""
    server = ScriptedServer(script).start()
    try:
        yield server
    finally:
        server.stop()


class ListSource:
    """A ReplySource for the real gateway server: plays `steps` in order, keeps the parsed requests."""

    def __init__(self, *steps: ModelReply | GatewayError) -> None:
        self.steps = list(steps)
        self.requests: list[ModelRequest] = []

    async def reply(self, request: ModelRequest) -> ModelReply:
        """The next scripted reply (raises a scripted GatewayError)."""
        self.requests.append(request)
        step = self.steps.pop(0) if self.steps else GatewayError(500, "script exhausted")
        if isinstance(step, GatewayError):
            raise step
        return step


def buckets(usage: Usage) -> tuple[int, int, int, int, int]:
    """A neutral usage's buckets: (uncached input, output, cache write, cache read, reasoning)."""
    return (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_creation_input_tokens,
        usage.cache_read_input_tokens,
        usage.reasoning_tokens,
    )


def recorded_buckets(usage: TokenUsage) -> tuple[int, int, int, int, int]:
    """The same buckets of a gateway call record's TokenUsage."""
    return (
        usage.uncached_input_tokens,
        usage.output_tokens,
        usage.cache_creation_input_tokens,
        usage.cache_read_input_tokens,
        usage.reasoning_tokens,
    )
