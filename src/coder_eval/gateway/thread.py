"""The gateway on its own event loop in a daemon thread, for synchronous callers and tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from coder_eval.gateway.budget import Budget
from coder_eval.gateway.providers import ProviderSet, RouteHints
from coder_eval.gateway.routes import Route
from coder_eval.gateway.service import Gateway, Mode
from coder_eval.gateway.source import ReplySource

T = TypeVar("T")


class GatewayThread:
    """A Gateway on its own event loop in a daemon thread.

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
        providers: ProviderSet | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.gateway = Gateway(
            mode, cassette_dir=cassette_dir, upstreams=upstreams, api_keys=api_keys, providers=providers, env=env
        )
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
        upstream: bool = False,
        hints: RouteHints | None = None,
    ) -> Route:
        """See Gateway.open_route."""
        return self.gateway.open_route(
            key, source=source, budget=budget, model_hint=model_hint, workdir=workdir, upstream=upstream, hints=hints
        )

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
