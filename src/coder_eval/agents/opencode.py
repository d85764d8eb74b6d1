"""The `opencode` agent kind (the OpenCode CLI): its config and declaration. No runner in this release yet."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from coder_eval.agents.kind import AgentKind, Binary
from coder_eval.agents.vocabularies import OPENCODE_TOOLS
from coder_eval.models.agent import BaseAgentConfig


class OpenCodeConfig(BaseAgentConfig):
    """OpenCode CLI; `model` is provider/model."""

    type: Literal["opencode"] = "opencode"
    variant: str | None = Field(None, description="Provider reasoning effort, passed as --variant.")
    pure: bool = Field(True, description="Run with --pure (no host OpenCode plugins).")


OPENCODE = AgentKind(
    name="opencode",
    config=OpenCodeConfig,
    binary=Binary("opencode", install="npm install -g opencode-ai"),
    keys_by_provider=True,
    protocols=("openai_chat",),
    gateway_env={"OPENAI_BASE_URL": "{base_url}/v1", "OPENAI_API_KEY": "{token}"},
    tools=OPENCODE_TOOLS,
)
