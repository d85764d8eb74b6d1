"""The `agent:` block of an `antigravity` task."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from coder_eval.models.agent import BaseAgentConfig


class AntigravityConfig(BaseAgentConfig):
    """Google Antigravity (Gemini) through the SDK's local harness; `model` is a Gemini model id."""

    type: Literal["antigravity"] = "antigravity"
    thinking_level: Literal["minimal", "low", "medium", "high"] = Field(
        "medium", description="Gemini thinking budget (thinking tokens are billed as output)."
    )
