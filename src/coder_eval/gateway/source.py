"""What a gateway route is opened with: where replies come from, and how much it may spend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from coder_eval.gateway.types import ModelReply, ModelRequest
from coder_eval.models.telemetry import TokenUsage

BudgetKind = Literal["tokens", "usd"]


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


@dataclass(frozen=True)
class Budget:
    """Spending limits of one route; every limit is optional. Token limits count cached input too."""

    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_total_tokens: int | None = None
    max_usd: float | None = None

    def exceeded(self, spent: TokenUsage, spent_usd: float) -> tuple[BudgetKind, str] | None:
        """Which limit `spent` has reached (tokens before USD), with a human-readable reason; None if none."""
        token_limits = (
            ("input tokens", spent.input_tokens, self.max_input_tokens),
            ("output tokens", spent.output_tokens, self.max_output_tokens),
            ("total tokens", spent.total_tokens, self.max_total_tokens),
        )
        for label, used, limit in token_limits:
            if limit is not None and used >= limit:
                return "tokens", f"{label} {used} of {limit} spent"
        if self.max_usd is not None and spent_usd >= self.max_usd:
            return "usd", f"${spent_usd:.6f} of ${self.max_usd:.6f} spent"
        return None
