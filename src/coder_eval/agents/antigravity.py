"""The `antigravity` agent kind (Google Antigravity, Gemini): config and declaration. No runner yet."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from coder_eval.agents.kind import AgentKind, Binary
from coder_eval.agents.vocabularies import ANTIGRAVITY_TOOLS
from coder_eval.models.agent import BaseAgentConfig


class AntigravityConfig(BaseAgentConfig):
    """Google Antigravity (Gemini)."""

    type: Literal["antigravity"] = "antigravity"
    thinking_level: Literal["minimal", "low", "medium", "high"] = Field("medium", description="Gemini thinking budget.")


ANTIGRAVITY = AgentKind(
    name="antigravity",
    config=AntigravityConfig,
    binary=Binary("antigravity", find=lambda: None, install="pip install google-antigravity"),
    credentials=("GEMINI_API_KEY",),
    protocols=("gemini",),
    gateway_env={"GOOGLE_GEMINI_BASE_URL": "{base_url}", "GEMINI_API_KEY": "{token}"},
    tools=ANTIGRAVITY_TOOLS,
)
