"""Validation of `sdk_options`, the Claude Agent SDK pass-through (used by claude-code and agent_judge)."""

from __future__ import annotations

import difflib
from typing import Any

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
