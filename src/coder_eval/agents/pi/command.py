"""The `pi` command line, its private agent directory (models.json, settings.json) and environment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coder_eval.agents.pi.config import PiConfig
from coder_eval.agents.skill_roots import skill_roots

PROVIDER = "coder-eval"
DEFAULT_MODEL = "gpt-5"
_TOOL_NAMES = {"bash": "bash", "read": "read", "write": "write", "edit": "edit", "grep": "grep"}
_TOOL_NAMES |= {"glob": "find", "find": "find", "ls": "ls", "list": "ls"}
"""Task-file tool names (Claude Code's or Pi's own, any case) -> Pi's tool names."""
_DEFAULT_TOOLS = ("read", "bash", "edit", "write")


def model_id(config: PiConfig) -> str:
    return config.model or DEFAULT_MODEL


def models_json(config: PiConfig, base_url: str, api_key: str) -> dict[str, Any]:
    """One OpenAI-compatible provider answering at the gateway, with the task's model."""
    reasoning = config.thinking_level not in (None, "off")
    model = {
        "id": model_id(config),
        "reasoning": reasoning,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    }
    if config.context_window is not None:
        model["contextWindow"] = config.context_window
    provider = {
        "baseUrl": base_url,
        "api": "openai-completions",
        "apiKey": api_key,
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": reasoning},
        "models": [model],
    }
    return {"providers": {PROVIDER: provider}}


def settings_json() -> dict[str, Any]:
    """No agent-level retries (the harness retries, with its own accounting), no start-up chatter."""
    return {
        "quietStartup": True,
        "enableInstallTelemetry": False,
        "retry": {"enabled": False, "provider": {"maxRetries": 0}},
    }


def write_agent_dir(home: Path, config: PiConfig, base_url: str, api_key: str) -> Path:
    """The private PI_CODING_AGENT_DIR (outside the sandbox) holding models.json and settings.json."""
    agent_dir = home / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(json.dumps(models_json(config, base_url, api_key)), encoding="utf-8")
    (agent_dir / "settings.json").write_text(json.dumps(settings_json()), encoding="utf-8")
    return agent_dir


def tools(config: PiConfig) -> list[str]:
    """Pi's enabled tools: the allowlist mapped to Pi's names (default set when unset), minus the denylist."""
    wanted = (
        [_TOOL_NAMES[n.lower()] for n in config.allowed_tools if n.lower() in _TOOL_NAMES]
        if config.allowed_tools is not None
        else list(_DEFAULT_TOOLS)
    )
    denied = {_TOOL_NAMES.get(n.lower(), n.lower()) for n in config.disallowed_tools or []}
    if config.permission_mode == "plan":
        denied |= {"bash", "edit", "write"}
    return [t for t in dict.fromkeys(wanted) if t not in denied]


def run_argv(cli: str, config: PiConfig, *, prompt: str, session_dir: Path, session: str | None) -> list[str]:
    argv = [cli, "--mode", "json", "-p", "--provider", PROVIDER, "--model", model_id(config)]
    argv += ["--session-dir", str(session_dir), "--offline", "--no-extensions", "--no-prompt-templates"]
    argv += ["--no-themes", "--no-context-files"]
    enabled = tools(config)
    argv += ["--tools", ",".join(enabled)] if enabled else ["--no-tools"]
    if config.thinking_level is not None:
        argv += ["--thinking", config.thinking_level]
    if config.system_prompt:
        argv += ["--append-system-prompt", config.system_prompt]
    roots = skill_roots(config)
    if roots:
        for root in roots:
            argv += ["--skill", str(root)]
    else:
        argv.append("--no-skills")
    if session is not None:
        argv += ["--session", session]
    return [*argv, prompt]


def cli_env(base: dict[str, str], home: Path, agent_dir: Path) -> dict[str, str]:
    """The engine's env with a private home and agent directory, and every network look-up off."""
    env = dict(base)
    env.pop("OPENAI_BASE_URL", None)  # the provider lives in models.json; keep the CLI from using it twice
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "PI_CODING_AGENT_DIR": str(agent_dir),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "NO_COLOR": "1",
        }
    )
    return env
