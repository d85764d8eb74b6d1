"""The `agent:` block of a `pi` task."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from coder_eval.models.agent import BaseAgentConfig


class PiConfig(BaseAgentConfig):
    """The Pi coding agent (`pi --mode json -p`); `model` is the model id the gateway sees."""

    type: Literal["pi"] = "pi"
    thinking_level: Literal["off", "minimal", "low", "medium", "high", "xhigh"] | None = Field(
        None, description="Reasoning level passed to Pi as --thinking; unset keeps Pi's default."
    )
    cli_path: str | None = Field(None, description="A pi binary to run instead of the installed one.")
    accepts_context_window: ClassVar[bool] = True  # written as the model's contextWindow in models.json
