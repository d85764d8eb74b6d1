"""Unit tests of the CLI agents' pieces: command lines, event translation, token readings, kinds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coder_eval.agents.codex.command import exec_argv, toml_value
from coder_eval.agents.codex.config import CodexConfig
from coder_eval.agents.codex.events import CodexTranslator
from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import ToolEndEvent, ToolStartEvent
from coder_eval.agents.opencode.command import cli_env, config_content, run_argv
from coder_eval.agents.opencode.config import OpenCodeConfig
from coder_eval.agents.opencode.events import OpenCodeTranslator, step_usage
from coder_eval.agents.vocabularies import CODEX_TOOLS, OPENCODE_TOOLS
from coder_eval.models.tools import filter_kind, tool_matches


def test_toml_values() -> None:
    assert toml_value('a"b') == '"a\\"b"'
    assert toml_value(False) == "false"
    assert toml_value({"x": [1, "y"]}) == '{"x" = [1, "y"]}'


def test_codex_argv_points_at_the_gateway_and_resumes() -> None:
    config = CodexConfig(reasoning_effort="high", system_prompt="Be terse.", sdk_options={"model_verbosity": "low"})
    argv = exec_argv(
        "codex", config, prompt="-p", workspace=Path("/w"), base_url="http://gw/v1", model="m", resume=None
    )
    joined = " ".join(argv)
    assert 'model_providers.coder_eval_gateway.base_url="http://gw/v1"' in joined
    assert 'model_reasoning_effort="high"' in joined and 'developer_instructions="Be terse."' in joined
    assert 'model_verbosity="low"' in joined and "check_for_update_on_startup=false" in joined
    assert argv[-2:] == ["--", "-p"] and "-C" in argv
    later = exec_argv("codex", config, prompt="again", workspace=Path("/w"), base_url="u", model="m", resume="T1")
    assert later[1:4] == ["exec", "resume", "T1"] and "-C" not in later
    bypass = exec_argv(
        "codex",
        CodexConfig(permission_mode="bypassPermissions"),
        prompt="p",
        workspace=Path("/w"),
        base_url="u",
        model="m",
        resume=None,
    )
    assert "--dangerously-bypass-approvals-and-sandbox" in bypass


def test_codex_rejects_replace_mode() -> None:
    with pytest.raises(ValueError, match="not supported by codex"):
        CodexConfig(system_prompt="x", system_prompt_mode="replace")


def test_codex_events_become_a_turn_record() -> None:
    collector = EventCollector(iteration=1, vocabulary=CODEX_TOOLS)
    translator = CodexTranslator(collector, "gpt-x")
    events: list[dict[str, Any]] = [
        {"type": "thread.started", "thread_id": "T1"},
        {"type": "turn.started"},
        {"type": "item.started", "item": {"id": "i1", "type": "command_execution", "command": "bash -c 'ls'"}},
        {
            "type": "item.completed",
            "item": {
                "id": "i1",
                "type": "command_execution",
                "command": "bash -c 'ls'",
                "aggregated_output": "a\n",
                "exit_code": 2,
                "status": "failed",
            },
        },
        {
            "type": "item.completed",
            "item": {
                "id": "i2",
                "type": "file_change",
                "status": "completed",
                "changes": [{"path": "/w/a.py", "kind": "add"}],
            },
        },
        {"type": "item.completed", "item": {"id": "i3", "type": "agent_message", "text": "done"}},
        {"type": "turn.completed", "usage": {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 7}},
    ]
    for event in events:
        translator.feed(event)
    record = collector.build_turn_record(ended_at=collector.started_at or __import__("datetime").datetime.now())
    assert translator.thread_id == "T1" and translator.completed
    assert [(c.tool_name, c.tool_kind, c.status) for c in record.commands] == [
        ("shell", "shell", "error"),
        ("apply_patch", "patch", "success"),
    ]
    usage = record.token_usage
    assert (usage.uncached_input_tokens, usage.cache_read_input_tokens, usage.output_tokens) == (60, 40, 7)
    assert record.agent_output == "done"


def test_opencode_token_readings() -> None:
    flat, ok = step_usage(
        {"input": 6796, "output": 128, "reasoning": 18, "cache": {"read": 1024, "write": 0}, "total": 7966}
    )
    assert ok and flat.uncached_input_tokens == 6796 and flat.output_tokens == 146
    nested, ok = step_usage(
        {"input": 1000, "output": 10, "reasoning": 0, "cache": {"read": 400, "write": 0}, "total": 1010}
    )
    assert ok and nested.uncached_input_tokens == 600 and nested.cache_read_input_tokens == 400
    _, ok = step_usage({"input": 5, "output": 5, "cache": {"read": 3}, "total": 99})
    assert not ok


def test_opencode_events_and_drift_checks() -> None:
    collector = EventCollector(iteration=1, vocabulary=OPENCODE_TOOLS)
    translator = OpenCodeTranslator(collector)
    translator.feed({"type": "step_start", "sessionID": "S", "part": {}})
    translator.feed(
        {
            "type": "tool_use",
            "sessionID": "S",
            "part": {
                "tool": "read",
                "callID": "c1",
                "state": {"status": "completed", "input": {"filePath": "/w/a"}, "output": "x"},
            },
        }
    )
    translator.feed(
        {
            "type": "tool_use",
            "sessionID": "S",
            "part": {
                "tool": "bash",
                "callID": "c2",
                "state": {"status": "completed", "input": {"command": "false"}, "metadata": {"exit": 1}},
            },
        }
    )
    translator.feed({"type": "step_finish", "part": {"tokens": {"input": 10, "output": 2, "total": 12}}})
    assert translator.session_id == "S" and translator.problem(require_tokens=True) is None
    assert [(c.tool_kind, c.status) for c in collector.commands] == [("read", "success"), ("shell", "error")]

    silent = OpenCodeTranslator(EventCollector(iteration=1))
    silent.feed({"type": "session.next.step", "part": {}})
    assert "no event this harness knows" in (silent.problem(require_tokens=False) or "")
    tokenless = OpenCodeTranslator(EventCollector(iteration=1))
    tokenless.feed({"type": "step_finish", "part": {}})
    assert "require_token_telemetry" in (tokenless.problem(require_tokens=True) or "")
    assert tokenless.problem(require_tokens=False) is None and tokenless.warning


def test_opencode_command_and_config(tmp_path: Path) -> None:
    config = OpenCodeConfig(model="deepseek/deepseek-v4", variant="high", disallowed_tools=["WebFetch"])
    argv = run_argv("opencode", config, prompt="go", workspace=Path("/w"), session="S", title="t")
    assert argv[:6] == ["opencode", "run", "--format", "json", "-m", "coder-eval/deepseek/deepseek-v4"]
    assert {"--auto", "--pure"} <= set(argv) and argv[argv.index("--session") + 1] == "S"
    content = config_content(config, "http://gw/v1", "tok")
    assert content["provider"]["coder-eval"]["options"]["baseURL"] == "http://gw/v1"
    assert content["permission"]["webfetch"] == "deny"
    env = cli_env({"OPENAI_BASE_URL": "http://gw/v1", "PATH": "/bin"}, config, tmp_path)
    assert env["OPENCODE_DISABLE_MODELS_FETCH"] == "1" and env["npm_config_registry"].startswith("http://127.0.0.1")
    assert env["HOME"] == str(tmp_path)


def test_collector_stamps_canonical_kinds() -> None:
    collector = EventCollector(iteration=1, vocabulary=OPENCODE_TOOLS)
    collector(ToolStartEvent(tool_use_id="1", tool_name="grep"))
    collector(ToolEndEvent(tool_use_id="1"))
    assert collector.commands[0].tool_kind == "search"


@pytest.mark.parametrize(
    ("wanted", "name", "kind", "hit"),
    [
        ("Bash", "Bash", None, True),
        ("Bash", "exec_command", "shell", True),
        ("shell", "bash", "shell", True),
        ("Write", "apply_patch", "patch", True),
        ("Edit", "apply_patch", "patch", True),
        ("Read", "bash", "shell", False),
        ("my_tool", "other_tool", "other", False),
        ("Bash", "bash", None, False),
    ],
)
def test_tool_filter(wanted: str, name: str, kind: str | None, hit: bool) -> None:
    assert tool_matches(wanted, name, kind) is hit


def test_filter_kind() -> None:
    assert filter_kind("my_tool") is None and filter_kind("grep") == "search" and filter_kind("edit") == "edit"


def test_agents_command_lists_and_rejects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coder_eval.cli.app import app

    runner = CliRunner()
    listed = runner.invoke(app, ["agents", "--json"])
    assert listed.exit_code == 0, listed.output
    assert {"codex", "opencode", "claude-code"} <= {row["kind"] for row in __import__("json").loads(listed.output)}
    wrong = runner.invoke(app, ["agents", "install", "codex"])
    assert wrong.exit_code == 2 and "no npm CLI" in wrong.output
    monkeypatch.setenv("CODER_EVAL_AGENTS_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    no_npm = runner.invoke(app, ["agents", "install", "opencode"])
    assert no_npm.exit_code == 2 and "npm is not on PATH" in no_npm.output
