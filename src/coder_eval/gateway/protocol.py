"""The wire-protocol contract and its registry.

Each protocol module registers one WireProtocol: which requests it owns, how to
parse them into a ModelRequest, how to answer a ModelReply (streamed or not), how
to answer an error, and how to read token usage out of an upstream response when
the gateway proxies to the real provider.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from aiohttp import web

from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, Usage


class WireProtocol(ABC):
    """One provider API as agents speak it."""

    name: ClassVar[str]
    upstream: ClassVar[str]
    """Default base URL of the real provider (direct/record modes)."""

    @abstractmethod
    def owns(self, method: str, path: str) -> bool:
        """Whether this protocol serves `method path` (path without the /t/<token> prefix or query)."""

    @abstractmethod
    def parse(self, path: str, query: dict[str, str], body: dict[str, Any]) -> ModelRequest:
        """The neutral request. Raise GatewayError(400, ...) for a body this protocol cannot read."""

    @abstractmethod
    async def respond(self, http: web.Request, request: ModelRequest, reply: ModelReply) -> web.StreamResponse:
        """Answer with `reply`, streaming (SSE / chunked) when the request asked for it."""

    @abstractmethod
    def error(self, err: GatewayError) -> web.Response:
        """The provider's error body for `err`, with its HTTP status."""

    @abstractmethod
    def usage_from_response(self, body: bytes, *, streamed: bool) -> tuple[Usage, str | None]:
        """Token usage and model name read from a complete upstream response (raw bytes)."""

    def upstream_headers(self, headers: dict[str, str], api_key: str | None) -> dict[str, str]:
        """Headers to forward upstream; protocols that carry the key differently override this."""
        return headers


P = TypeVar("P", bound=type[WireProtocol])
_PROTOCOLS: dict[str, WireProtocol] = {}


def register_protocol(cls: P) -> P:
    existing = _PROTOCOLS.get(cls.name)
    if existing is not None and type(existing) is not cls:
        raise ValueError(f"wire protocol {cls.name!r} is already registered")
    _PROTOCOLS[cls.name] = cls()
    return cls


def protocols() -> list[WireProtocol]:
    _load_builtin()
    return list(_PROTOCOLS.values())


def protocol_for(method: str, path: str) -> WireProtocol | None:
    for proto in protocols():
        if proto.owns(method, path):
            return proto
    return None


def _load_builtin() -> None:
    import importlib

    for name in ("anthropic", "openai_chat", "openai_responses", "gemini"):
        try:
            importlib.import_module(f"coder_eval.gateway.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"coder_eval.gateway.{name}":
                raise


Handler = Callable[[web.Request], Any]
