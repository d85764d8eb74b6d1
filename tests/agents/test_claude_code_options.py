"""The claude-code agent's SDK options, launcher, private home and CLI environment (no CLI run)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from coder_eval.agents.claude_code import options as opts
from coder_eval.agents.claude_code.agent import ClaudeCodeAgent
from coder_eval.agents.claude_code.config import ClaudeCodeConfig
from coder_eval.sandbox.tempdir import HostEnvironment


def config(**fields: Any) -> ClaudeCodeConfig:
    return ClaudeCodeConfig(**fields)


def build(cfg: ClaudeCodeConfig, **overrides: Any) -> Any:
    kwargs: dict[str, Any] = {
        "cwd": Path("/work/space"),
        "env": {"HOME": "/h"},
        "cli": Path("/h/claude-launch"),
        "max_turns": None,
        "resume": None,
        "stderr": None,
        **overrides,
    }
    return opts.sdk_options(cfg, **kwargs)


# -- sdk_options -----------------------------------------------------------------------------------


def test_defaults() -> None:
    options = build(config())
    assert options.cwd == "/work/space"
    assert options.cli_path == "/h/claude-launch"
    assert options.env == {"HOME": "/h"}
    assert options.permission_mode == "acceptEdits"
    assert options.allowed_tools == [] and options.disallowed_tools == []
    assert options.setting_sources == ["project"]  # unset: the project's own settings only
    assert options.plugins == []
    assert options.model is None and options.max_turns is None and options.resume is None
    assert options.settings is None
    assert options.system_prompt == {"type": "preset", "preset": "claude_code", "exclude_dynamic_sections": True}


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan", "bypassPermissions"])
def test_permission_mode(mode: str) -> None:
    assert build(config(permission_mode=mode)).permission_mode == mode


def test_tools_model_turns_and_resume() -> None:
    cfg = config(model="claude-sonnet-4-5", allowed_tools=["Read", "Bash(git:*)"], disallowed_tools=["WebFetch"])
    options = build(cfg, max_turns=7, resume="session-1")
    assert options.allowed_tools == ["Read", "Bash(git:*)"]
    assert options.disallowed_tools == ["WebFetch"]
    assert options.model == "claude-sonnet-4-5"
    assert options.max_turns == 7
    assert options.resume == "session-1"


def test_allowed_tools_are_copies() -> None:
    cfg = config(allowed_tools=["Read"])
    build(cfg).allowed_tools.append("Bash")
    assert cfg.allowed_tools == ["Read"]


@pytest.mark.parametrize(("sources", "expected"), [([], []), (["user", "local"], ["user", "local"])])
def test_setting_sources_are_kept(sources: list[str], expected: list[str]) -> None:
    assert build(config(setting_sources=sources)).setting_sources == expected


def test_plugins() -> None:
    cfg = config(plugins=[{"type": "local", "path": "/p/one"}, {"path": "/p/two"}])
    assert build(cfg).plugins == [{"type": "local", "path": "/p/one"}, {"type": "local", "path": "/p/two"}]


def test_system_prompt_append_keeps_the_preset() -> None:
    options = build(config(system_prompt="Be terse."))
    assert options.system_prompt == {
        "type": "preset",
        "preset": "claude_code",
        "exclude_dynamic_sections": True,
        "append": "Be terse.",
    }


def test_system_prompt_replace_sends_ours_alone() -> None:
    options = build(config(system_prompt="You are a linter.", system_prompt_mode="replace"))
    assert options.system_prompt == "You are a linter."


def test_blank_system_prompt_is_unset() -> None:
    assert "append" not in build(config(system_prompt="   ")).system_prompt


def test_claude_settings_mapping_becomes_json() -> None:
    settings = {"env": {"FOO": "1"}, "permissions": {"deny": ["Bash(rm:*)"]}}
    options = build(config(claude_settings=settings))
    assert json.loads(options.settings) == settings


def test_claude_settings_path_is_passed_through() -> None:
    assert build(config(claude_settings="/etc/claude/settings.json")).settings == "/etc/claude/settings.json"


def test_sdk_options_pass_through() -> None:
    options = build(config(sdk_options={"max_buffer_size": 1234, "add_dirs": ["/data"], "fallback_model": "m2"}))
    assert options.max_buffer_size == 1234
    assert options.add_dirs == ["/data"]
    assert options.fallback_model == "m2"


@pytest.mark.parametrize("key", ["model", "cwd", "env", "permission_mode", "resume", "max_turns", "plugins"])
def test_sdk_options_may_not_set_framework_keys(key: str) -> None:
    with pytest.raises(ValidationError, match="Coder Eval owns"):
        config(sdk_options={key: "x"})


def test_sdk_options_unknown_key_names_the_closest() -> None:
    with pytest.raises(ValidationError, match="did you mean 'max_buffer_size'"):
        config(sdk_options={"max_bufer_size": 1})


def test_stderr_callback_is_passed() -> None:
    lines: list[str] = []
    build(config(), stderr=lines.append).stderr("boom")
    assert lines == ["boom"]


# -- CLI resolution and launcher -----------------------------------------------------------------


def test_cli_path_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opts, "bundled_cli", lambda: Path("/bundled/claude"))
    assert opts.resolve_cli(config(cli_path="/opt/claude")) == "/opt/claude"
    assert opts.resolve_cli(config()) == "/bundled/claude"


def test_cli_falls_back_to_path_then_fails(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(opts, "bundled_cli", lambda: None)
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert opts.resolve_cli(config()) == str(fake)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="cli_path"):
        opts.resolve_cli(config())


def test_launcher_content(tmp_path: Path) -> None:
    launcher, pidfile = opts.write_launcher(tmp_path, ["/x/claude"])
    assert launcher == tmp_path / "claude-launch" and pidfile == tmp_path / "claude.pid"
    assert os.access(launcher, os.X_OK)
    text = launcher.read_text()
    # every program by absolute path: the launcher runs on the host with the unit's PATH
    shell, setsid = os.path.realpath(shutil.which("sh") or ""), os.path.realpath(shutil.which("setsid") or "")
    assert text.startswith(f"#!{shell}\n")
    assert f"echo $$ > {pidfile}" in text
    assert text.rstrip().endswith(f'exec {setsid} /x/claude "$@"')


def test_launcher_runs_the_sandbox_launch_line(tmp_path: Path) -> None:
    """A driver's launch line (a wrapper prefix) is run whole, each word quoted."""
    launcher, _ = opts.write_launcher(tmp_path, ["/usr/bin/env", "A=b c", "/x/claude"])
    setsid = os.path.realpath(shutil.which("setsid") or "")
    assert f"exec {setsid} /usr/bin/env 'A=b c' /x/claude \"$@\"" in launcher.read_text()


def fake_cli(root: Path, body: str) -> Path:
    cli = root / "fake-claude"
    cli.write_text("#!/bin/sh\n" + body)
    cli.chmod(0o755)
    return cli


def test_launcher_makes_the_cli_lead_its_own_group(tmp_path: Path) -> None:
    cli = fake_cli(tmp_path, 'echo "$@"; cut -d" " -f5 /proc/$$/stat\n')
    launcher, pidfile = opts.write_launcher(tmp_path, [str(cli)])
    out = subprocess.run([str(launcher), "--a", "b c"], capture_output=True, text=True, timeout=10, check=True)
    args, pgid = out.stdout.splitlines()
    assert args == "--a b c"
    assert int(pgid) == int(pidfile.read_text()), "the pid in the pidfile is the CLI's process group"
    assert int(pgid) != os.getpgrp()


def alive(pid: int) -> bool:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return raw.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_kill_sync_reaches_children_in_other_sessions(tmp_path: Path) -> None:
    """Claude Code runs Bash commands in shells of their own session; a kill must still reach them."""
    shell = f"echo $$ > {tmp_path}/shell.pid; sleep 60 & echo $! > {tmp_path}/child.pid; wait"
    body = f"setsid sh -c '{shell}' &\nsleep 60\n"
    cli = fake_cli(tmp_path, body)
    agent = ClaudeCodeAgent(config(cli_path=str(cli)), task_id="t")
    asyncio.run(agent.start(HostEnvironment(tmp_path)))
    assert agent.launcher is not None and agent.pidfile is not None
    proc = subprocess.Popen([str(agent.launcher)])
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 10
        while not (tmp_path / "child.pid").is_file() or not (tmp_path / "child.pid").read_text().strip():
            assert time.monotonic() < deadline, "the fake CLI never started its shell"
            time.sleep(0.05)
        pids = [proc.pid, *(int((tmp_path / f"{n}.pid").read_text()) for n in ("shell", "child"))]
        assert all(alive(p) for p in pids)
        agent.kill_sync()
        proc.wait(timeout=5)
        deadline = time.monotonic() + 5
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in pids if alive(p)] == []
    finally:
        for pid in [p for p in pids if alive(p)]:  # never leave them behind, even when the test fails
            os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait(timeout=5)
        asyncio.run(agent.stop())


def test_kill_sync_without_a_cli_is_a_no_op(tmp_path: Path) -> None:
    agent = ClaudeCodeAgent(config(), task_id="t")
    agent.kill_sync()  # never started
    asyncio.run(agent.start(HostEnvironment(tmp_path)))
    agent.kill_sync()  # started, no CLI yet: no pidfile
    asyncio.run(agent.stop())


# -- private home and CLI environment -------------------------------------------------------------


def test_isolated_home(tmp_path: Path) -> None:
    home = opts.isolated_home(tmp_path)
    assert home == {
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / ".config"),
        "XDG_CACHE_HOME": str(tmp_path / ".cache"),
        "XDG_DATA_HOME": str(tmp_path / ".local" / "share"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude"),
    }
    assert all(Path(p).is_dir() for p in home.values())


def test_agent_start_gives_each_task_its_own_home_and_stop_removes_it(tmp_path: Path) -> None:
    path = os.pathsep.join([str(tmp_path / "bin"), "/usr/bin"])
    env = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:1/t/x", "HOME": "/root", "PATH": path}
    first, second = (ClaudeCodeAgent(config(), task_id=t, env=env) for t in ("a", "b"))
    sandboxes = [HostEnvironment(tmp_path), HostEnvironment(tmp_path)]
    for agent, sandbox in zip((first, second), sandboxes, strict=True):
        asyncio.run(agent.start(sandbox))
    assert first.home is not None and second.home is not None and first.home != second.home
    cli_home = sandboxes[0].home_dir / "claude-code"  # the CLI's HOME lives in the sandbox's private dir
    assert first.cli_env["HOME"] == str(cli_home) != "/root"
    assert second.cli_env["HOME"] != first.cli_env["HOME"]
    assert first.cli_env["CLAUDE_CONFIG_DIR"] == str(cli_home / ".claude")
    assert first.cli_env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:1/t/x"
    assert first.cli_env["PATH"].split(os.pathsep)[0] == str(tmp_path / "bin")
    assert first.launcher is not None and first.launcher.parent == first.home
    for agent in (first, second):
        home = agent.home
        asyncio.run(agent.stop())
        assert home is not None and not home.exists()
        assert agent.get_state() == "stopped"


def test_cli_env_quiet_and_not_retrying(tmp_path: Path) -> None:
    env = opts.cli_env({"FOO": "bar"}, {"HOME": str(tmp_path)}, [])
    assert env["FOO"] == "bar" and env["HOME"] == str(tmp_path)
    assert env["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert env["DISABLE_AUTOUPDATER"] == "1" and env["DISABLE_TELEMETRY"] == "1"
    assert env["ANTHROPIC_API_KEY"] == "coder-eval-dummy"


def test_cli_env_keeps_the_gateway_route_and_key() -> None:
    base = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9/t/tok", "ANTHROPIC_API_KEY": "coder-eval-gateway"}
    env = opts.cli_env(base, {}, [])
    assert env["ANTHROPIC_BASE_URL"] == base["ANTHROPIC_BASE_URL"]
    assert env["ANTHROPIC_API_KEY"] == "coder-eval-gateway"


def test_cli_env_overrides_a_base_retry_setting() -> None:
    assert opts.cli_env({"CLAUDE_CODE_MAX_RETRIES": "10"}, {}, [])["CLAUDE_CODE_MAX_RETRIES"] == "0"


def test_cli_env_home_wins_over_base() -> None:
    assert opts.cli_env({"HOME": "/root"}, {"HOME": "/private"}, [])["HOME"] == "/private"


@pytest.mark.parametrize(("euid", "sandbox"), [(0, "1"), (1000, None)])
def test_is_sandbox_only_as_root(monkeypatch: pytest.MonkeyPatch, euid: int, sandbox: str | None) -> None:
    monkeypatch.setattr(opts.os, "geteuid", lambda: euid)
    assert opts.cli_env({}, {}, []).get("IS_SANDBOX") == sandbox


def test_path_prepend(monkeypatch: pytest.MonkeyPatch) -> None:
    env = opts.cli_env({"PATH": "/usr/bin:/bin"}, {}, [Path("/sbx/bin"), Path("/tools")])
    assert env["PATH"] == os.pathsep.join(["/sbx/bin", "/tools", "/usr/bin:/bin"])
    monkeypatch.setenv("PATH", "/host/bin")
    assert opts.cli_env({}, {}, [Path("/sbx/bin")])["PATH"] == os.pathsep.join(["/sbx/bin", "/host/bin"])
    assert opts.cli_env({"PATH": "/only"}, {}, [])["PATH"] == "/only"
