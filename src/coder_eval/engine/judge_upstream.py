"""A gateway reply source that relays a judge's call to Bedrock or litellm.

The gateway speaks to Anthropic itself, but a judge routed by `checker_context.api_route` to
Bedrock or litellm needs a transport the gateway has no protocol for. The judge still calls its
own gateway route (so the call is recorded, priced and, in record mode, kept as a cassette that
replay serves); the route's source turns the Anthropic request back into the judge's call, sends
it through the transport, and answers with what came back.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, ToolCall, Usage
from coder_eval.judges.transport import ForcedTool, JudgeCallError, JudgeUnavailableError, ModelCall, Transport

DEFAULT_TIMEOUT = 300.0


def _system_text(system: Any) -> str:
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
    return ""


def model_call(raw: dict[str, Any], timeout: float) -> ModelCall:
    """The judge call an Anthropic Messages body describes (one forced tool at most, as judges send)."""
    tool: ForcedTool | None = None
    tools = raw.get("tools") or []
    choice = raw.get("tool_choice") or {}
    if tools and isinstance(tools[0], dict):
        wanted = choice.get("name") if isinstance(choice, dict) else None
        spec = next((t for t in tools if isinstance(t, dict) and t.get("name") == wanted), tools[0])
        tool = ForcedTool(str(spec.get("name")), str(spec.get("description", "")), dict(spec.get("input_schema") or {}))
    return ModelCall(
        model=str(raw.get("model", "")),
        system=_system_text(raw.get("system")),
        messages=list(raw.get("messages") or []),
        tool=tool,
        max_tokens=int(raw.get("max_tokens") or 2000),
        temperature=float(raw.get("temperature") or 0.0),
        timeout=timeout,
    )


@dataclass
class TransportSource:
    """Answers a judge route's calls through `transport` (Bedrock, litellm)."""

    transport: Transport
    timeout: float = DEFAULT_TIMEOUT
    _ids: Any = field(default_factory=itertools.count)

    async def reply(self, request: ModelRequest) -> ModelReply:
        call = model_call(request.raw, self.timeout)
        try:
            answer = await asyncio.to_thread(self.transport.call, call)
        except JudgeUnavailableError as exc:
            raise GatewayError(401, str(exc), "authentication_error") from None
        except JudgeCallError as exc:
            status = 504 if "timed out" in str(exc) else 502
            raise GatewayError(status, f"{self.transport.name}: {exc}", "api_error") from None
        calls = [ToolCall(f"toolu_upstream_{next(self._ids)}", name, args) for name, args in answer.tool_calls]
        return ModelReply(
            text=answer.text,
            tool_calls=calls,
            usage=Usage(input_tokens=answer.input_tokens, output_tokens=answer.output_tokens),
            stop_reason="tool_use" if calls else "end_turn",
            model=answer.model or call.model,
            cost_usd=answer.cost_usd,
        )
