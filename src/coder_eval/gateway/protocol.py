"""The wire-protocol contract and its registry.

Each protocol module registers one WireProtocol class: which request paths it owns, where the
real provider is (and the variables that override its URL and hold its API key), how to parse
a request into a ModelRequest, how to answer a ModelReply (streamed or not), how to answer an
error, and how to read token usage out of an upstream response when the gateway proxies.

The registry holds the classes, so the engine can read a protocol's declarations (its key
variable, its upstream) without instantiating anything; the gateway serves with one shared,
stateless instance per class. Built-in protocols are registered lazily: a lookup imports only
the module that provides the name.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import Any, ClassVar, TypeVar

from aiohttp import web

from coder_eval.gateway.protocol_names import PROTOCOLS
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, Usage


class WireProtocol(ABC):
    """One provider API as agents speak it. A subclass declares the class variables below."""

    name: ClassVar[str]
    """The registry name (also the cassette's and the call record's `protocol`)."""
    paths: ClassVar[tuple[str, ...]]
    """Regular expressions of the request paths it owns (matched whole, without `/t/<token>` or query)."""
    methods: ClassVar[tuple[str, ...]] = ("POST",)
    """HTTP methods it serves."""
    upstream: ClassVar[str] = ""
    """Base URL of the real provider for a protocol no provider profile serves (a plugin's); the
    built-in protocols leave it empty, their calls go where the provider profiles say."""
    upstream_var: ClassVar[str]
    """Environment variable that overrides `upstream`."""
    api_key_var: ClassVar[str]
    """Environment variable holding the real API key the gateway forwards (never given to agents)."""

    _patterns: ClassVar[tuple[re.Pattern[str], ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._patterns = tuple(re.compile(p) for p in getattr(cls, "paths", ()))

    def owns(self, method: str, path: str) -> bool:
        """Whether this protocol serves `method path` (path without the /t/<token> prefix or query)."""
        return method.upper() in self.methods and any(p.fullmatch(path) for p in self._patterns)

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

    def render_body(self, request: ModelRequest, reply: ModelReply) -> dict[str, Any] | None:
        """`reply` as this protocol's non-streamed response body, or None when it cannot say."""
        return None

    def upstream_headers(self, headers: dict[str, str], api_key: str | None) -> dict[str, str]:
        """Headers to forward upstream; protocols that carry the key differently override this."""
        return headers


_DECLARED = ("name", "paths", "upstream_var", "api_key_var")
_instances: dict[type[WireProtocol], WireProtocol] = {}

P = TypeVar("P", bound=type[WireProtocol])


def register_protocol(cls: P) -> P:
    """Class decorator: register a WireProtocol under its `name` (it must declare every class variable)."""
    missing = [attr for attr in _DECLARED if not getattr(cls, attr, None)]
    if missing:
        raise TypeError(f"wire protocol {cls.__qualname__} does not declare {', '.join(missing)}")
    PROTOCOLS.add(cls.name, cls)
    return cls


def protocol(name: str) -> WireProtocol:
    """The serving instance of the protocol registered as `name` (UnknownKindError if none is)."""
    return _instance(PROTOCOLS.get(name))


def protocols() -> list[WireProtocol]:
    """The serving instance of every registered protocol, by name."""
    return [_instance(cls) for _, cls in PROTOCOLS.entries()]


def protocol_for(method: str, path: str) -> WireProtocol | None:
    """The protocol that owns `method path`, if any."""
    for proto in protocols():
        if proto.owns(method, path):
            return proto
    return None


def _instance(cls: type[WireProtocol]) -> WireProtocol:
    instance = _instances.get(cls)
    if instance is None:
        instance = _instances[cls] = cls()
    return instance
