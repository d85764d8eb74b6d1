"""Token accounting of one model call: the one usage estimate, its price and its record form."""

from __future__ import annotations

import json
import math

from coder_eval.gateway.types import ModelReply, ModelRequest, Usage
from coder_eval.models.telemetry import TokenUsage
from coder_eval.pricing import calculate_cost


def _tokens(chars: int) -> int:
    """About four characters per token, at least one."""
    return max(1, math.ceil(chars / 4))


def estimate_usage(request: ModelRequest, reply: ModelReply) -> Usage:
    """A deterministic token estimate: the request's text and tools in, the reply's text and calls out.

    It reads the protocol-neutral request, so one conversation costs the same on every wire protocol.
    """
    tools = json.dumps([[t.name, t.description, t.input_schema] for t in request.tools], sort_keys=True)
    chars = len(request.system) + len(tools)
    for m in request.messages:
        chars += len(m.text) + sum(len(json.dumps(c.arguments)) for c in m.tool_calls)
        chars += sum(len(r.content) for r in m.tool_results)
    out = len(reply.text) + sum(len(c.name) + len(json.dumps(c.arguments)) for c in reply.tool_calls)
    return Usage(input_tokens=_tokens(chars), output_tokens=_tokens(out))


def has_tokens(usage: Usage) -> bool:
    """Whether a call used any tokens at all."""
    return usage.total > 0 or usage.reasoning_tokens > 0


def call_cost(model: str | None, usage: Usage) -> float | None:
    """USD of one call; a call that used no tokens cost nothing, even on a model the rate card does not know."""
    if not has_tokens(usage):
        return 0.0
    return calculate_cost(
        model, usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens
    )


def token_usage(usage: Usage, cost: float | None) -> TokenUsage:
    """The record's TokenUsage for a call's Usage and cost."""
    return TokenUsage(
        uncached_input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_creation_input_tokens=usage.cache_creation_input_tokens,
        cache_read_input_tokens=usage.cache_read_input_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        total_cost_usd=cost,
    )
