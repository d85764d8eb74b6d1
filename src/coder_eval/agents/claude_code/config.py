"""The `claude-code` agent's config: the typed fields and the SDK pass-through it may carry."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.sandbox import check_ignore_patterns
from coder_eval.models.sdk_options import check_sdk_options


class ClaudeCodeConfig(BaseAgentConfig):
    """Claude Code through the Claude Agent SDK."""

    type: Literal["claude-code"] = "claude-code"
    setting_sources: list[Literal["user", "project", "local"]] | None = Field(
        None, description="Host setting sources the SDK reads; [] isolates the run (recommended)."
    )
    claude_settings: str | dict[str, Any] | None = Field(None, description="--settings: a file path or a mapping.")
    sdk_options: dict[str, Any] = Field(default_factory=dict, description="ClaudeAgentOptions pass-through.")
    ignore_patterns: list[str] | None = Field(None, description="Ignore overrides for judge sub-agent copies.")
    cli_path: str | None = Field(None, description="Claude Code CLI to run; default: the one bundled with the SDK.")

    @field_validator("sdk_options")
    @classmethod
    def _sdk_keys(cls, options: dict[str, Any]) -> dict[str, Any]:
        return check_sdk_options(options)

    @field_validator("ignore_patterns")
    @classmethod
    def _patterns(cls, values: list[str] | None) -> list[str] | None:
        return None if values is None else check_ignore_patterns(values)
