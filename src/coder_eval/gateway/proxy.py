"""Relaying to the agent: the real provider's response in direct/record mode, a recorded one in replay.

The upstream request carries the agent's own headers minus per-hop ones and the token it may
have sent as its key, with the real key put in by the protocol. The response streams through
to the agent chunk by chunk while its bytes are kept, so the gateway can read the usage (and
save the cassette) once it is complete.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlencode

import aiohttp
from aiohttp import web

from coder_eval.gateway import bedrock_stream
from coder_eval.gateway.routes import KEY_QUERY, ModelCall
from coder_eval.gateway.upstream_request import UpstreamRequest

UPSTREAM_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=600)
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
_ERROR_TEXT_LIMIT = 500
_REPLAY_CHUNK = 16 * 1024
SSE = "text/event-stream"


@dataclass
class Exchange:
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


def error_text(status: int, body: bytes) -> str | None:
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


# -- writing to the agent ---------------------------------------------------------------------------


async def write(response: web.StreamResponse, data: bytes) -> bool:
    """Write to the agent; False when it has gone away (a disconnect is not an error of ours)."""
    try:
        await response.write(data)
    except ConnectionError:
        return False
    return True


async def begin(response: web.StreamResponse, http: web.Request) -> bool:
    """Send the status and headers; False when the agent has gone away."""
    try:
        await response.prepare(http)
    except ConnectionError:
        return False
    return True


async def end(response: web.StreamResponse) -> None:
    """Finish the response; an agent that already left is ignored."""
    with contextlib.suppress(ConnectionError):
        await response.write_eof()


def _sse_chunks(body: bytes) -> Iterator[bytes]:
    """An SSE body cut at event boundaries, so a replayed stream arrives event by event."""
    start = 0
    while start < len(body):
        stop = body.find(b"\n\n", start)
        stop = len(body) if stop < 0 else stop + 2
        yield body[start:stop]
        start = stop


def _plain_chunks(body: bytes) -> Iterator[bytes]:
    """A non-stream body in fixed-size pieces."""
    for start in range(0, len(body), _REPLAY_CHUNK):
        yield body[start : start + _REPLAY_CHUNK]


async def send_recorded(call: ModelCall, exchange: Exchange) -> bool:
    """Send a recorded body, event by event when it is a stream; False if the agent went away.

    The caller ends the response, after recording the call.
    """
    if not await begin(exchange.response, call.http):
        return False
    for chunk in (_sse_chunks if exchange.streamed else _plain_chunks)(exchange.body):
        if not await write(exchange.response, chunk):
            return False
    return True


# -- the upstream provider --------------------------------------------------------------------------


def upstream_url(call: ModelCall, base: str) -> str:
    """The provider URL for this call: upstream base, the agent's path and query."""
    if call.key_source == KEY_QUERY:  # the token is not a key the provider knows
        query = urlencode([(k, v) for k, v in call.http.query.items() if k != "key"])
    else:
        query = call.http.query_string
    return base.rstrip("/") + call.path + (f"?{query}" if query else "")


def forwardable_headers(call: ModelCall) -> dict[str, str]:
    """The agent's headers minus per-hop ones and the token it may have sent as its key."""
    drop = _HOP_HEADERS | ({call.key_source} if call.key_source else set())
    return {k: v for k, v in call.http.headers.items() if k.lower() not in drop}


def upstream_headers(call: ModelCall, api_key: str | None) -> dict[str, str]:
    """The agent's headers minus per-hop ones and the token-as-key, with the real key put in."""
    return call.protocol.upstream_headers(forwardable_headers(call), api_key)


async def send(session: aiohttp.ClientSession, call: ModelCall, request: UpstreamRequest) -> Exchange:
    """Send a built provider request and relay its answer (a Bedrock event stream as SSE)."""
    async with session.request(call.http.method, request.url, data=request.body, headers=request.headers) as upstream:
        if request.bedrock_stream and upstream.status < 400:
            return await relay(call, upstream, translate=bedrock_stream.translate, content_type=SSE)
        return await relay(call, upstream)


async def forward(session: aiohttp.ClientSession, call: ModelCall, base: str, api_key: str | None) -> Exchange:
    """Send the call to the provider and relay its answer; the caller ends the response.

    Raises TimeoutError or aiohttp.ClientError when the provider cannot be reached at all.
    """
    url, headers = upstream_url(call, base), upstream_headers(call, api_key)
    async with session.request(call.http.method, url, data=call.raw, headers=headers) as upstream:
        return await relay(call, upstream)


async def relay(
    call: ModelCall,
    upstream: aiohttp.ClientResponse,
    *,
    translate: Callable[[AsyncIterator[bytes]], AsyncIterator[bytes]] | None = None,
    content_type: str | None = None,
) -> Exchange:
    """Copy the upstream response to the agent chunk by chunk while keeping the bytes; the caller ends it.

    `translate` turns the provider's body into the one the agent's protocol expects (Bedrock's
    event stream into SSE); what is kept (and recorded) is what the agent received.
    """
    headers = {k: v for k, v in upstream.headers.items() if k.lower() not in _DROP_RESPONSE_HEADERS}
    if content_type is not None:
        headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        headers["Content-Type"] = content_type
    response = web.StreamResponse(status=upstream.status, headers=headers)
    chunks: list[bytes] = []
    error: str | None = None
    connected = await begin(response, call.http)
    body = upstream.content.iter_any()
    try:
        async for chunk in translate(body) if translate is not None else body:
            chunks.append(chunk)
            connected = connected and await write(response, chunk)
            if not connected:
                break
    except (TimeoutError, aiohttp.ClientError) as exc:
        error = f"upstream stream broke: {type(exc).__name__}"
    if not connected:
        error = error or "client disconnected"
    kept = b"".join(chunks)
    error = error or error_text(upstream.status, kept)
    kind = content_type or upstream.headers.get("Content-Type") or ""
    return Exchange(response, upstream.status, kind, kept, error, connected)
