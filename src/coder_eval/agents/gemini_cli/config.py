"""The `agent:` block of a `gemini-cli` task."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from coder_eval.models.agent import BaseAgentConfig


class GeminiCliConfig(BaseAgentConfig):
    """Google's Gemini CLI (`gemini -p ... -o stream-json`); `model` is a Gemini model id."""

    type: Literal["gemini-cli"] = "gemini-cli"
    cli_path: str | None = Field(None, description="A gemini binary to run instead of the installed one.")
    max_session_turns: int | None = Field(
        None, ge=1, description="Gemini CLI's own cap on model turns per session (model.maxSessionTurns)."
    )
    settings: dict[str, object] = Field(
        default_factory=dict,
        description="Extra settings.json entries merged over the harness's, e.g. {model: {compressionThreshold: 0.5}}.",
    )
