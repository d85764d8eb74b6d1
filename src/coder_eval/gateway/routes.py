"""Routes and attribution: which task or turn a request to the gateway belongs to.

Each task/turn opens a Route with a random, unguessable token; the agent gets
`route.base_url` (`http://127.0.0.1:<port>/t/<token>`) and appends its API paths to it.
Attribution is only ever by that token. Clients that cannot set a base path may instead
send the token as their API key (`x-api-key`, `Authorization: Bearer`, `x-goog-api-key`,
or Gemini's `?key=`) against the bare server URL.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from coder_eval.gateway.budget import Budget, BudgetKind
from coder_eval.gateway.protocol import WireProtocol
from coder_eval.gateway.providers import RouteHints
from coder_eval.gateway.source import ReplySource
from coder_eval.gateway.types import ModelRequest
from coder_eval.models.telemetry import ProviderCallCost, TokenUsage

CallHook = Callable[[ProviderCallCost], None]

TOKEN_PREFIX = "/t/"
KEY_QUERY = "?key"
"""Where a token read from Gemini's `?key=` query parameter came from (it must not reach the provider)."""


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
    upstream: bool = False
    """The source relays a real provider (a judge on Bedrock or litellm): it answers in direct and record
    modes too, record mode keeps a cassette of its answer, and replay serves that cassette."""
    hints: RouteHints | None = None
    """The agent's own documented provider variables (Codex's CODEX_*), read first for its provider."""
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
class ModelCall:
    """One model call in flight: its route, its protocol, and what it asked."""

    route: Route
    protocol: WireProtocol
    http: web.Request
    path: str
    """The API path, without the `/t/<token>` prefix or the query."""
    raw: bytes
    body: dict[str, Any]
    started: float
    """`time.perf_counter()` when the request arrived."""
    key_source: str | None
    """Where the token was read when the client sent it as its API key (None: from the path)."""
    request: ModelRequest | None = None
    provider: str | None = None
    """The provider the call was sent to (direct and record modes)."""

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


def split_token(path: str) -> tuple[str | None, str]:
    """(`token`, rest) for `/t/<token>/rest`; (None, path) without the prefix."""
    if not path.startswith(TOKEN_PREFIX):
        return None, path
    token, _, rest = path[len(TOKEN_PREFIX) :].partition("/")
    return token, "/" + rest


def key_candidates(http: web.Request) -> Iterator[tuple[str, str]]:
    """(where, value) of every credential the client sent, for token-as-key attribution."""
    for header in ("x-api-key", "x-goog-api-key"):
        value = http.headers.get(header)
        if value:
            yield header, value
    auth = http.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        yield "authorization", auth[7:].strip()
    if http.query.get("key"):
        yield KEY_QUERY, http.query["key"]


class RouteTable:
    """The open routes by token (thread-safe to open and close from any thread)."""

    def __init__(self) -> None:
        self._routes: dict[str, Route] = {}
        self._lock = threading.Lock()

    def open(
        self,
        key: str,
        server_url: str,
        *,
        unique_key: bool,
        source: ReplySource | None = None,
        budget: Budget | None = None,
        model_hint: str | None = None,
        workdir: str | None = None,
        upstream: bool = False,
        hints: RouteHints | None = None,
    ) -> Route:
        """A new route under a fresh token; `unique_key` refuses a key another open route holds."""
        with self._lock:
            if unique_key and any(r.key == key for r in self._routes.values()):
                raise ValueError(f"a route for {key!r} is already open; its cassette would be shared")
            token = secrets.token_urlsafe(24)
            url = f"{server_url}{TOKEN_PREFIX}{token}"
            route = Route(key, token, url, source, budget, model_hint, workdir=workdir, upstream=upstream, hints=hints)
            self._routes[token] = route
        return route

    def close(self, route: Route) -> None:
        """Forget `route`; later requests with its token are unattributed (idempotent)."""
        with self._lock:
            self._routes.pop(route.token, None)

    def get(self, token: str | None) -> Route | None:
        """The open route with this token, if any."""
        return self._routes.get(token) if token else None

    def attribute(self, http: web.Request, token: str | None) -> tuple[Route | None, str | None]:
        """The route a request belongs to, and where its token was read when it was not in the path."""
        if token is not None:
            return self.get(token), None
        for where, value in key_candidates(http):
            route = self.get(value)
            if route is not None:
                return route, where
        return None, None
