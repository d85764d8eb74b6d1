"""Build the Claude Agent SDK options for one task: CLI, isolated home, gateway env, settings."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path
from typing import Any

from coder_eval.agents.claude_code.config import ClaudeCodeConfig
from coder_eval.common.host_tools import find_host_tool, host_tool

# Launcher that makes the CLI lead its own process group, so a timeout can kill the CLI and
# everything it spawned with one signal. `setsid` keeps the PID when the caller is not a
# group leader, so the PID written here is the group id. `env -u` drops the names the SDK
# inherits from the harness (their values were already blanked in the options), so the CLI
# starts with exactly the sandbox's environment.
_LAUNCHER = """#!{sh}
echo $$ > {pidfile}
exec {unset}{setsid}{argv} "$@"
"""

SDK_OWN_VARS = frozenset({"CLAUDE_CODE_ENTRYPOINT", "CLAUDE_AGENT_SDK_VERSION", "PWD"})
"""Variables the Claude Agent SDK sets itself for the CLI (harmless; kept)."""


def exact_env(env: dict[str, str], harness: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """(options.env, names to unset) so the SDK, which merges os.environ, starts the CLI with `env` only.

    Every harness variable not in `env` is overridden with an empty value (so no value reaches
    even the launcher) and named for the launcher's `env -u`.
    """
    source = dict(os.environ) if harness is None else harness
    extra = sorted(k for k in source if k not in env and k not in SDK_OWN_VARS)
    return {**{k: "" for k in extra}, **env}, extra


def bundled_cli() -> Path | None:
    """The Claude Code CLI shipped inside the claude-agent-sdk wheel, if present."""
    import importlib.util

    spec = importlib.util.find_spec("claude_agent_sdk")  # locate without importing (start-up time)
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "_bundled" / ("claude.exe" if os.name == "nt" else "claude")
    return path if path.is_file() else None


def find_cli() -> str | None:
    """Where `plan` finds Claude Code: the SDK-bundled CLI, else `claude` on PATH."""
    found = bundled_cli()
    return str(found) if found is not None else shutil.which("claude")


def resolve_cli(config: ClaudeCodeConfig) -> str:
    if config.cli_path:
        return config.cli_path
    found = bundled_cli()
    if found is not None:
        return str(found)
    on_path = shutil.which("claude")
    if on_path is None:
        raise FileNotFoundError("no Claude Code CLI: install claude-agent-sdk or set agent.cli_path")
    return on_path


def write_launcher(home: Path, argv: list[str], unset: list[str] | None = None) -> tuple[Path, Path]:
    """A script the SDK starts as "the CLI": it records its pid, then becomes `argv` (the sandbox's launch line)."""
    launcher = home / "claude-launch"
    pidfile = home / "claude.pid"
    # Every program here by absolute path: the launcher runs on the host with the unit's
    # environment, whose PATH starts with directories the agent can write.
    env = shlex.quote(host_tool("env"))
    drop = f"{env} " + "".join(f"-u {shlex.quote(name)} " for name in unset) if unset else ""
    found = find_host_tool("setsid")
    setsid = f"{shlex.quote(found)} " if found else ""
    text = _LAUNCHER.format(
        sh=host_tool("sh"),
        pidfile=shlex.quote(str(pidfile)),
        argv=" ".join(shlex.quote(a) for a in argv),
        unset=drop,
        setsid=setsid,
    )
    launcher.write_text(text, encoding="utf-8")
    launcher.chmod(0o755)
    return launcher, pidfile


def isolated_home(root: Path) -> dict[str, str]:
    """A private HOME and XDG tree, so host settings, logins and caches never leak in."""
    dirs = {
        "HOME": root,
        "XDG_CONFIG_HOME": root / ".config",
        "XDG_CACHE_HOME": root / ".cache",
        "XDG_DATA_HOME": root / ".local" / "share",
        "CLAUDE_CONFIG_DIR": root / ".claude",
    }
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    return {k: str(v) for k, v in dirs.items()}


def cli_env(base: dict[str, str], home: dict[str, str], path_prepend: list[Path] | None = None) -> dict[str, str]:
    """Environment for the CLI: gateway URL and key from `base`, quiet and non-retrying CLI."""
    env = dict(base)
    env.update(home)
    env.setdefault("ANTHROPIC_API_KEY", "coder-eval-dummy")
    env.update(
        {
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CODE_MAX_RETRIES": "0",  # the harness retries, with its own accounting
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
        }
    )
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"  # bypassPermissions refuses to run as root otherwise
    if path_prepend:
        env["PATH"] = os.pathsep.join([*map(str, path_prepend), env.get("PATH", os.environ.get("PATH", ""))])
    return env


def system_prompt(config: ClaudeCodeConfig) -> str | dict[str, Any]:
    """Append mode keeps Claude Code's own prompt (minus per-run dynamic sections); replace sends ours alone."""
    if config.system_prompt_mode == "replace" and config.system_prompt:
        return config.system_prompt
    preset: dict[str, Any] = {"type": "preset", "preset": "claude_code", "exclude_dynamic_sections": True}
    if config.system_prompt:
        preset["append"] = config.system_prompt
    return preset


def sdk_options(
    config: ClaudeCodeConfig,
    *,
    cwd: Path,
    env: dict[str, str],
    cli: Path,
    max_turns: int | None,
    resume: str | None,
    stderr: Any,
) -> Any:
    """ClaudeAgentOptions for one communicate() call."""
    from claude_agent_sdk import ClaudeAgentOptions

    settings: str | None = None
    if isinstance(config.claude_settings, dict):
        settings = json.dumps(config.claude_settings)
    elif isinstance(config.claude_settings, str):
        settings = config.claude_settings
    kwargs: dict[str, Any] = {
        "cwd": str(cwd),
        "env": env,
        "cli_path": str(cli),
        "permission_mode": config.permission_mode,
        "allowed_tools": list(config.allowed_tools or []),
        "disallowed_tools": list(config.disallowed_tools or []),
        "setting_sources": list(config.setting_sources) if config.setting_sources is not None else ["project"],
        "plugins": [{"type": "local", "path": p.path} for p in config.plugins],
        "system_prompt": system_prompt(config),
        "model": config.model,
        "max_turns": max_turns,
        "resume": resume,
        "settings": settings,
        "stderr": stderr,
    }
    kwargs.update(config.sdk_options)
    return ClaudeAgentOptions(**kwargs)
