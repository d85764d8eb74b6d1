"""The `opencode run` command line and environment: a provider at the gateway, nothing fetched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coder_eval.agents.opencode.config import OpenCodeConfig
from coder_eval.agents.skill_roots import skill_roots
from coder_eval.models.providers import public_endpoint

PROVIDER = "coder-eval"
DEFAULT_MODEL = "openai/gpt-5"
CLOSED_REGISTRY = "http://127.0.0.1:9/"
"""A loopback port nothing listens on: OpenCode's plugin look-ups fail at once instead of going out."""


def model_id(config: OpenCodeConfig) -> str:
    """The model as OpenCode names it under our provider (`coder-eval/<provider/model>`)."""
    return config.model or DEFAULT_MODEL


def config_content(config: OpenCodeConfig, base_url: str, api_key: str) -> dict[str, Any]:
    """OPENCODE_CONFIG_CONTENT: one OpenAI-compatible provider answering at the gateway."""
    model = model_id(config)
    content: dict[str, Any] = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Coder Eval gateway",
                "options": {"baseURL": base_url, "apiKey": api_key},
                "models": {model: {"name": model}},
            }
        },
        "model": f"{PROVIDER}/{model}",
        "small_model": f"{PROVIDER}/{model}",
        "autoupdate": False,
        "share": "disabled",
        "permission": _permissions(config),
    }
    paths = skill_paths(config)
    if paths:
        content["skills"] = {"paths": paths}
    if config.system_prompt:
        content["instructions"] = []
        content["agent"] = {"build": {"prompt": config.system_prompt}}
    return content


def skill_paths(config: OpenCodeConfig) -> list[str]:
    """`skills.paths`: each plugin's skills directory (OpenCode scans them; `--pure` keeps them)."""
    return [str(root) for root in skill_roots(config)]


def _permissions(config: OpenCodeConfig) -> dict[str, Any]:
    if config.permission_mode == "plan":
        return {"edit": "deny", "bash": "deny", "webfetch": "deny"}
    denied = {name.lower() for name in config.disallowed_tools or []}
    rules: dict[str, Any] = {"edit": "allow", "bash": "allow", "webfetch": "allow"}
    for tool in ("edit", "bash", "webfetch"):
        if tool in denied:
            rules[tool] = "deny"
    return rules


def run_argv(
    cli: str, config: OpenCodeConfig, *, prompt: str, workspace: Path, session: str | None, title: str
) -> list[str]:
    argv = [cli, "run", "--format", "json", "-m", f"{PROVIDER}/{model_id(config)}", "--dir", str(workspace)]
    argv += ["--title", title]
    if config.permission_mode != "plan":
        argv.append("--auto")
    if config.pure:
        argv.append("--pure")
    if config.variant:
        argv += ["--variant", config.variant]
    if session is not None:
        argv += ["--session", session]
    return [*argv, "--", prompt]


def cli_env(base: dict[str, str], config: OpenCodeConfig, home: Path) -> dict[str, str]:
    """The CLI's environment: the engine's env, a private home, the provider config, no look-ups."""
    env = dict(base)
    dirs = {
        "HOME": home,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_STATE_HOME": home / ".local" / "state",
    }
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    env.update({k: str(v) for k, v in dirs.items()})
    base_url = base.get("OPENAI_BASE_URL") or public_endpoint("openai")
    api_key = base.get("OPENAI_API_KEY") or "coder-eval-gateway"
    env.update(
        {
            "OPENCODE_CONFIG_CONTENT": json.dumps(config_content(config, base_url, api_key)),
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "npm_config_registry": CLOSED_REGISTRY,
            "NO_COLOR": "1",
        }
    )
    return env
