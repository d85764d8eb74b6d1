"""The `pi` agent kind (the Pi coding agent): its config and declaration. No runner in this release yet."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from coder_eval.agents.kind import AgentKind, Binary
from coder_eval.agents.vocabularies import PI_TOOLS
from coder_eval.models.agent import BaseAgentConfig


class PiConfig(BaseAgentConfig):
    """Pi coding agent; `model` is provider/model."""

    type: Literal["pi"] = "pi"
    thinking_level: Literal["off", "minimal", "low", "medium", "high", "xhigh"] | None = Field(
        None, description="Reasoning level passed to Pi."
    )


PI = AgentKind(
    name="pi",
    config=PiConfig,
    binary=Binary("pi", install="npm install -g @mariozechner/pi-coding-agent"),
    keys_by_provider=True,
    protocols=("openai_chat",),
    gateway_env={"OPENAI_BASE_URL": "{base_url}/v1", "OPENAI_API_KEY": "{token}"},
    tools=PI_TOOLS,
)
