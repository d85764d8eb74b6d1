"""Environment checks for `plan`: agent CLIs, uv, docker and credentials. Warnings only."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from coder_eval.models.task import TaskDefinition

AGENT_BINARIES: dict[str, str] = {
    "claude-code": "claude",
    "codex": "codex",
    "opencode": "opencode",
    "pi": "pi",
}

_CREDENTIALS: dict[str, tuple[str, ...]] = {
    "claude-code": ("ANTHROPIC_API_KEY", "AWS_BEARER_TOKEN_BEDROCK"),
    "codex": ("CODEX_API_KEY", "OPENAI_API_KEY"),
    "antigravity": ("GEMINI_API_KEY",),
}


def _bundled_claude() -> bool:
    from coder_eval.agents.claude_code_options import bundled_cli

    return bundled_cli() is not None


def _claude_login() -> str | None:
    """A cached Claude Code login, which the gateway cannot use: it forwards API keys only."""
    if os.environ.get("CLAUDE_CODE_OAUTH_TOKEN"):
        return "CLAUDE_CODE_OAUTH_TOKEN"
    path = Path.home() / ".claude" / ".credentials.json"
    return "~/.claude/.credentials.json" if path.is_file() else None


def _credential_warning(kind: str, model: str | None) -> str | None:
    if kind in ("opencode", "pi") and model and "/" in model:
        provider = model.split("/", 1)[0].upper().replace("-", "_")
        var = f"{provider}_API_KEY"
        return None if var in os.environ else f"{var} is not set ({kind} model {model})"
    names = _CREDENTIALS.get(kind)
    if not names or any(os.environ.get(n) for n in names):
        return None
    message = f"no credentials for {kind}: set {' or '.join(names)} (not needed with --backend script)"
    login = _claude_login() if kind == "claude-code" else None
    if login:
        message += (
            f"; the Claude Code login in {login} is not used: agents reach the model through "
            "Coder Eval's gateway, which holds an API key, never a subscription login"
        )
    return message


def environment_warnings(tasks: list[TaskDefinition], *, implemented: set[str]) -> list[str]:
    """One warning per distinct missing tool or credential across all tasks."""
    warnings: list[str] = []
    kinds = {t.agent_type or "claude-code" for t in tasks}
    for kind in sorted(kinds):
        if kind not in implemented:
            warnings.append(f"agent type {kind!r} validates, but this version of Coder Eval cannot run it yet")
        binary = AGENT_BINARIES.get(kind)
        if kind == "claude-code" and _bundled_claude():
            binary = None  # the SDK wheel ships the CLI
        if binary and shutil.which(binary) is None:
            warnings.append(f"{binary!r} is not on PATH (needed by agent type {kind!r})")
        models = {t.agent.model if t.agent else None for t in tasks if (t.agent_type or "claude-code") == kind}
        for model in sorted(models, key=str):
            note = _credential_warning(kind, model)
            if note and note not in warnings:
                warnings.append(note)
    if any(t.sandbox.python is not None and t.sandbox.python.env_packages for t in tasks) and not shutil.which("uv"):
        warnings.append("'uv' is not on PATH; tasks with python env_packages need it (pip install uv)")
    if any(t.sandbox.driver == "docker" for t in tasks) and not shutil.which("docker"):
        warnings.append("'docker' is not on PATH; driver: docker tasks cannot run here")
    return warnings
