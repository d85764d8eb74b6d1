"""The `codex` agent kind (OpenAI Codex): its config and declaration. No runner in this release yet."""

from __future__ import annotations

from typing import Literal

from coder_eval.agents.kind import AgentKind, Binary
from coder_eval.agents.vocabularies import CODEX_TOOLS
from coder_eval.models.agent import BaseAgentConfig


class CodexConfig(BaseAgentConfig):
    """OpenAI Codex."""

    type: Literal["codex"] = "codex"


CODEX = AgentKind(
    name="codex",
    config=CodexConfig,
    binary=Binary("codex", install="pip install openai-codex-cli-bin"),
    credentials=("CODEX_API_KEY", "OPENAI_API_KEY"),
    protocols=("openai_responses",),
    gateway_env={
        "OPENAI_BASE_URL": "{base_url}/v1",
        "OPENAI_API_KEY": "{token}",
        "CODEX_BASE_URL": "{base_url}/v1",
        "CODEX_API_KEY": "{token}",
    },
    tools=CODEX_TOOLS,
)
