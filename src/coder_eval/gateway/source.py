"""Where a scripted route's replies come from: the ReplySource contract."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from coder_eval.gateway.types import ModelReply, ModelRequest


@runtime_checkable
class ReplySource(Protocol):
    """Produces the model's replies for one route in `script` mode (the scripted model, a test double).

    The gateway awaits `reply` once per model call on its own event loop, with the
    parsed, protocol-neutral request; the protocol renders the returned reply
    (streamed or not). Raise GatewayError to answer with an error instead (e.g. an
    injected 429/500/529). Calls of one route may overlap if the agent issues them
    concurrently; side calls (no tools) arrive here too, the source decides whether
    they advance its script.
    """

    async def reply(self, request: ModelRequest) -> ModelReply:
        """The reply to `request`; may raise GatewayError."""
        ...
