"""The `codex exec` command line for one turn: provider, sandbox, offline switches, config overrides."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from coder_eval.agents.codex.config import CodexConfig, SandboxMode
from coder_eval.agents.skill_roots import skill_dirs, skill_roots

PROVIDER = "coder_eval_gateway"
DEFAULT_MODEL = "gpt-5-codex"

_SANDBOX_BY_PERMISSION: dict[str, SandboxMode] = {
    "plan": "read-only",
    "bypassPermissions": "danger-full-access",
    "default": "workspace-write",
    "acceptEdits": "workspace-write",
}

# No update check, no ChatGPT/GitHub/analytics traffic, no web search; commands run in a plain
# (non-login) shell, so the sandbox's PATH (its venv, shims) is not reset by /etc/profile.
_OFFLINE: dict[str, Any] = {
    "allow_login_shell": False,
    "check_for_update_on_startup": False,
    "analytics.enabled": False,
    "feedback.enabled": False,
    "hide_agent_reasoning": False,
    "web_search": "disabled",
}


def toml_value(value: Any) -> str:
    """`value` as a TOML literal for `-c key=value`."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)


def sandbox_mode(config: CodexConfig) -> SandboxMode:
    return config.sandbox_mode or _SANDBOX_BY_PERMISSION[config.permission_mode]


def overrides(config: CodexConfig, *, base_url: str, model: str) -> dict[str, Any]:
    """Every `-c` setting of a turn, later keys winning (the task's `sdk_options` last)."""
    provider = f"model_providers.{PROVIDER}"
    settings: dict[str, Any] = {
        "model": model,
        "model_provider": PROVIDER,
        f"{provider}.name": "Coder Eval gateway",
        f"{provider}.base_url": base_url,
        f"{provider}.env_key": "CODEX_API_KEY",
        f"{provider}.wire_api": "responses",
        f"{provider}.request_max_retries": 0,
        f"{provider}.stream_max_retries": 0,
        f"{provider}.supports_websockets": False,
        **_OFFLINE,
    }
    if config.reasoning_effort is not None:
        settings["model_reasoning_effort"] = config.reasoning_effort
    if config.system_prompt:
        settings["developer_instructions"] = config.system_prompt
    if config.context_window is not None:
        settings["model_context_window"] = config.context_window
    settings.update(config.sdk_options)
    return settings


def exec_argv(
    cli: str,
    config: CodexConfig,
    *,
    prompt: str,
    workspace: Path,
    base_url: str,
    model: str,
    resume: str | None,
) -> list[str]:
    """`codex exec --json ...` (or `codex exec resume <thread> ...` for a later turn)."""
    argv = [cli, "exec"]
    if resume is not None:
        argv += ["resume", resume]
    argv += ["--json", "--skip-git-repo-check"]
    if resume is None:
        argv += ["-C", str(workspace)]
    mode = sandbox_mode(config)
    if mode == "danger-full-access":
        argv.append("--dangerously-bypass-approvals-and-sandbox")
    else:
        argv += ["-c", f"sandbox_mode={toml_value(mode)}"]
    for key, value in overrides(config, base_url=base_url, model=model).items():
        argv += ["-c", f"{key}={toml_value(value)}"]
    argv += ["--", prompt]
    return argv


def install_skills(home: Path, config: CodexConfig) -> list[str]:
    """Copy the plugins' skills into `$CODEX_HOME/skills/<name>/`, where Codex lists user skills.

    Codex reads a skill by opening its SKILL.md with the shell, so the copy sits in the agent's
    private home (readable in every sandbox) rather than in the workspace. Returns their names;
    a name two plugins share keeps the first plugin's skill.
    """
    installed: list[str] = []
    for root in skill_roots(config):
        for skill in skill_dirs(root):
            if skill.name in installed:
                continue
            shutil.copytree(skill, home / "skills" / skill.name, symlinks=False, dirs_exist_ok=True)
            installed.append(skill.name)
    return installed
