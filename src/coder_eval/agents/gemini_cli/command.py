"""The `gemini` command line, its private settings (~/.gemini) and environment."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from coder_eval.agents.gemini_cli.config import GeminiCliConfig
from coder_eval.agents.skill_roots import skill_roots
from coder_eval.agents.tool_names import own_names
from coder_eval.agents.vocabularies import GEMINI_CLI_TOOLS

DEFAULT_MODEL = "gemini-2.5-pro"


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        old = merged.get(key)
        merged[key] = _merge(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return merged


def settings(config: GeminiCliConfig) -> dict[str, Any]:
    """settings.json: API-key auth, no telemetry, no update checks, the task's tool lists."""
    doc: dict[str, Any] = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True, "enableAutoUpdate": False},
        "ui": {"hideBanner": True, "hideTips": True},
        "model": {},
        "tools": {},
    }
    if config.max_session_turns is not None:
        doc["model"]["maxSessionTurns"] = config.max_session_turns
    if config.allowed_tools is not None:
        doc["tools"]["core"] = own_names(GEMINI_CLI_TOOLS, config.allowed_tools)
    if config.disallowed_tools:
        doc["tools"]["exclude"] = own_names(GEMINI_CLI_TOOLS, config.disallowed_tools)
    if skill_roots(config):
        doc["skills"] = {"enabled": True}
    return _merge(doc, dict(config.settings))


def write_home(home: Path, config: GeminiCliConfig) -> None:
    """~/.gemini: settings.json, the system prompt as user memory (GEMINI.md, appended), the skills."""
    gemini = home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(json.dumps(settings(config)), encoding="utf-8")
    if config.system_prompt:
        (gemini / "GEMINI.md").write_text(config.system_prompt + "\n", encoding="utf-8")
    for root in skill_roots(config):
        for skill in sorted(p.parent for p in root.glob("*/SKILL.md")):
            shutil.copytree(skill, gemini / "skills" / skill.name, dirs_exist_ok=True)


def run_argv(cli: str, config: GeminiCliConfig, *, prompt: str, session: str | None) -> list[str]:
    approval = "plan" if config.permission_mode == "plan" else "yolo"
    argv = [cli, "-o", "stream-json", "-m", config.model or DEFAULT_MODEL, "--approval-mode", approval]
    if session is not None:
        argv += ["--resume", session]
    return [*argv, "-p", prompt]


def cli_env(base: dict[str, str], home: Path) -> dict[str, str]:
    """The engine's env with a private home; the workspace is trusted so headless mode may write."""
    env = dict(base)
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_DEFAULT_AUTH_TYPE": "gemini-api-key",
            "GEMINI_CLI_NO_RELAUNCH": "true",
            "NO_COLOR": "1",
            "NO_BROWSER": "true",
        }
    )
    return env
