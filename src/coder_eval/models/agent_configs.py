"""Config schemas of the built-in agent kinds."""

from __future__ import annotations

import difflib
from typing import Any, Literal

from pydantic import Field, field_validator

from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.sandbox import check_ignore_patterns

# Keys the harness sets itself; sdk_options may not override them.
FRAMEWORK_OWNED_SDK_KEYS = frozenset(
    {
        "model",
        "allowed_tools",
        "disallowed_tools",
        "permission_mode",
        "hooks",
        "mcp_servers",
        "resume",
        "continue_conversation",
        "max_turns",
        "setting_sources",
        "include_partial_messages",
        "cwd",
        "env",
        "system_prompt",
        "plugins",
        "settings",
        "cli_path",
        "can_use_tool",
        "stderr",
    }
)


def _sdk_option_names() -> set[str] | None:
    """Field names of the installed claude-agent-sdk's options, or None when it is absent."""
    try:
        import dataclasses

        from claude_agent_sdk import ClaudeAgentOptions
    except Exception:
        return None
    return {f.name for f in dataclasses.fields(ClaudeAgentOptions)}


def check_sdk_options(options: dict[str, Any]) -> dict[str, Any]:
    """Refuse framework-owned keys and, when the SDK is installed, keys it does not know."""
    owned = sorted(k for k in options if k in FRAMEWORK_OWNED_SDK_KEYS)
    if owned:
        raise ValueError(
            f"sdk_options may not set {', '.join(owned)}: Coder Eval owns these; "
            "use the typed agent fields or run_limits instead"
        )
    known = _sdk_option_names()
    if known is not None:
        for key in options:
            if key not in known:
                close = difflib.get_close_matches(key, sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ValueError(f"sdk_options key {key!r} is not a ClaudeAgentOptions field{hint}")
    return options


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


class CodexConfig(BaseAgentConfig):
    """OpenAI Codex."""

    type: Literal["codex"] = "codex"


class AntigravityConfig(BaseAgentConfig):
    """Google Antigravity (Gemini)."""

    type: Literal["antigravity"] = "antigravity"
    thinking_level: Literal["minimal", "low", "medium", "high"] = Field("medium", description="Gemini thinking budget.")


class OpenCodeConfig(BaseAgentConfig):
    """OpenCode CLI; `model` is provider/model."""

    type: Literal["opencode"] = "opencode"
    variant: str | None = Field(None, description="Provider reasoning effort, passed as --variant.")
    pure: bool = Field(True, description="Run with --pure (no host OpenCode plugins).")


class PiConfig(BaseAgentConfig):
    """Pi coding agent; `model` is provider/model."""

    type: Literal["pi"] = "pi"
    thinking_level: Literal["off", "minimal", "low", "medium", "high", "xhigh"] | None = Field(
        None, description="Reasoning level passed to Pi."
    )


class NoAgentConfig(BaseAgentConfig):
    """No agent: the sandbox is set up, pre_run runs, criteria grade what is there."""

    type: Literal["none"] = "none"


BUILTIN_AGENT_CONFIGS: dict[str, type[BaseAgentConfig]] = {
    "claude-code": ClaudeCodeConfig,
    "codex": CodexConfig,
    "antigravity": AntigravityConfig,
    "opencode": OpenCodeConfig,
    "pi": PiConfig,
    "none": NoAgentConfig,
}
