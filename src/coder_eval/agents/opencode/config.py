"""The `agent:` block of an `opencode` task."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from coder_eval.models.agent import BaseAgentConfig


class OpenCodeConfig(BaseAgentConfig):
    """The OpenCode CLI (`opencode run --format json`); `model` is provider/model."""

    type: Literal["opencode"] = "opencode"
    variant: str | None = Field(None, description="Provider reasoning effort, passed as --variant.")
    pure: bool = Field(True, description="Run with --pure (no external OpenCode plugins).")
    require_token_telemetry: bool = Field(
        True,
        description="Fail a turn whose finished steps reported no token counts; false warns and scores it.",
    )
    cli_path: str | None = Field(None, description="An opencode binary to run instead of the installed one.")
