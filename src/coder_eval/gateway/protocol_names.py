"""The wire-protocol registry itself, kept apart from the contract so naming protocols costs no aiohttp import.

`plan` and the built-in plugin hook only declare names and lazy targets here; the classes (and
aiohttp with them) load when a gateway first needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coder_eval.models.registry import Registry

if TYPE_CHECKING:
    from coder_eval.gateway.protocol import WireProtocol

PROTOCOLS: Registry[type[WireProtocol]] = Registry("wire protocol")
"""Wire-protocol classes by name."""


def register_builtin_protocols() -> None:
    """Register the built-in protocols lazily (their modules load at the first lookup)."""
    PROTOCOLS.add_lazy("anthropic", "coder_eval.gateway.anthropic:AnthropicMessages")
    PROTOCOLS.add_lazy("openai_chat", "coder_eval.gateway.openai_chat:OpenAIChatProtocol")
    PROTOCOLS.add_lazy("openai_responses", "coder_eval.gateway.openai_responses:OpenAIResponsesProtocol")
    PROTOCOLS.add_lazy("gemini", "coder_eval.gateway.gemini:GeminiProtocol")
