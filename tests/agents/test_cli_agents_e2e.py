"""End to end: the real Codex and OpenCode CLIs on the scripted model, through `coder-eval run`.

Turn cap, turn timeout (the CLI's whole process group dies), a budget refused mid-turn by the
gateway and a crashing CLI each end in the right status with the partial turn kept; a session
recorded against a second scripted gateway replays to the same results.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from cli_agents import kind_params, require_binary
from test_claude_code_e2e import alive, explain, run_cli, task_json, trajectory, workspace, write_task

pytestmark = pytest.mark.slow

UPSTREAM_VAR = {
    "codex": "CODER_EVAL_UPSTREAM_OPENAI_RESPONSES",
    "opencode": "CODER_EVAL_UPSTREAM_OPENAI_CHAT",
    "pi": "CODER_EVAL_UPSTREAM_OPENAI_CHAT",
    "gemini-cli": "CODER_EVAL_UPSTREAM_GEMINI",
    "antigravity": "CODER_EVAL_UPSTREAM_GEMINI",
}


def agent_task(kind: str, task_id: str, prompt: str, criteria: list[dict[str, Any]], **agent: Any) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "description": f"e2e: {task_id}",
        "initial_prompt": prompt,
        "agent": {"type": kind, "permission_mode": "acceptEdits", **agent},
        "success_criteria": criteria,
    }


def run_task(tmp_path: Path, doc: dict[str, Any], script: dict[str, Any], *args: str) -> tuple[dict[str, Any], Any]:
    task = write_task(tmp_path, doc, script)
    proc = run_cli(tmp_path, task, "run", "-b", "script", "--preservation-mode", "DIRECT_WRITE", *args)
    return task_json(tmp_path / "run", doc["task_id"]), proc


@pytest.fixture(params=kind_params())
def kind(request: pytest.FixtureRequest) -> str:
    require_binary(request.param)
    return str(request.param)


def test_write_and_run_with_kinds_and_gateway_tokens(kind: str, tmp_path: Path) -> None:
    doc = agent_task(
        kind,
        "hello",
        "Write hello.py and run it.",
        [
            {"type": "file_contains", "path": "hello.py", "includes": ["print"], "description": "written"},
            {
                "type": "command_executed",
                "tool_name": "Bash",
                "command_pattern": "python3? hello\\.py",
                "require_success": True,
                "description": "ran it",
            },
        ],
    )
    script = {
        "steps": [
            {"write_file": {"path": "hello.py", "content": "print('hi')\n"}},
            {"run_command": "python hello.py"},
            {"reply": "done"},
        ]
    }
    record, proc = run_task(tmp_path, doc, script)
    assert record["final_status"] == "SUCCESS", explain(record, proc)
    (turn,) = record["iterations"]
    kinds = [c["tool_kind"] for c in turn["commands"]]
    assert kinds[-1] == "shell" and len(kinds) == 2
    assert turn["commands"][-1]["result_summary"].strip() == "hi"
    gateway = record["environment_info"]["gateway_usage"]
    assert gateway["input_tokens"] > 0
    assert turn["token_usage"]["input_tokens"] == gateway["input_tokens"]
    assert turn["token_usage"]["output_tokens"] == gateway["output_tokens"]
    assert record["command_stats"]["commands_by_kind"]["shell"] >= 1


def test_turn_cap_is_graded_with_the_calls_made(kind: str, tmp_path: Path) -> None:
    doc = agent_task(kind, "capped", "Make four files.", [{"type": "file_exists", "path": "d.txt", "description": "d"}])
    doc["run_limits"] = {"max_turns": 2}
    steps = [{"run_command": f"echo {n} > {n}.txt"} for n in ("a", "b", "c", "d")]
    record, proc = run_task(tmp_path, doc, {"steps": [*steps, {"reply": "done"}]})
    assert record["final_status"] == "MAX_TURNS_EXHAUSTED", explain(record, proc)
    (turn,) = record["iterations"]
    assert turn["max_turns_exhausted"]
    # The call past the cap is recorded and cut: Codex reports it as it starts (unresolved), OpenCode
    # only once it has finished (one terminal event), so there it ran; Pi, Gemini CLI and Antigravity
    # announce a call before running it, like Codex. Nothing after it runs.
    third = {"opencode": "success"}.get(kind, "unresolved")
    assert [c["status"] for c in turn["commands"]] == ["success", "success", third]
    assert not (workspace(record) / "d.txt").exists()


def sleepers(token: str) -> list[int]:
    """Pids of live processes whose command line holds `token` (found from outside any pid namespace)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            with contextlib.suppress(OSError):
                if token in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode() and alive(int(entry.name)):
                    found.append(int(entry.name))
    return found


def test_turn_timeout_kills_the_cli_group(kind: str, tmp_path: Path) -> None:
    doc = agent_task(kind, "slow", "Wait.", [{"type": "file_exists", "path": "never.txt", "description": "never"}])
    # Codex hands a command still running after 10 s back to the model (it goes on in the
    # background), so its turn must time out before that; OpenCode may need 10 s just to start.
    # Antigravity's harness moves a command to the background after 10 s as well (its wait time);
    # Pi and Gemini CLI wait for the command and take a few seconds to start.
    limits = {"codex": 6, "opencode": 25, "antigravity": 6, "pi": 20, "gemini-cli": 20}
    doc["run_limits"] = {"turn_timeout": limits[kind]}
    token = f"{os.getpid() % 1000 + 100}.{int(time.time()) % 97 + 1}"  # an unusual `sleep` argument
    command = f"sleep {token} & wait"
    script = {"steps": [{"run_command": "echo first > first.txt"}, {"run_command": command}, {"reply": "never"}]}
    started = time.monotonic()
    record, proc = run_task(tmp_path, doc, script)
    assert record["final_status"] == "TIMEOUT", explain(record, proc)
    assert time.monotonic() - started < 90
    (turn,) = record["iterations"]
    assert turn["crashed"]
    statuses = [c["status"] for c in turn["commands"]]
    assert statuses[0] == "success", "the partial turn keeps the finished call"
    deadline = time.monotonic() + 5
    while sleepers(f"sleep {token}") and time.monotonic() < deadline:
        time.sleep(0.1)
    survivors = sleepers(f"sleep {token}")
    for pid in survivors:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert survivors == [], f"outlived the turn timeout: {survivors}"


def test_budget_refused_mid_turn(kind: str, tmp_path: Path) -> None:
    doc = agent_task(kind, "budget", "Three files.", [{"type": "file_exists", "path": "c.txt", "description": "c"}])
    doc["run_limits"] = {"max_total_tokens": 1500}
    script = {
        "tokens": {"input": 1000, "output": 10},
        "steps": [{"run_command": f"echo {n} > {n}.txt"} for n in ("a", "b", "c")] + [{"reply": "done"}],
    }
    record, proc = run_task(tmp_path, doc, script)
    assert record["final_status"] == "TOKEN_BUDGET_EXCEEDED", explain(record, proc)
    ws = workspace(record)
    assert (ws / "a.txt").exists() and (ws / "b.txt").exists() and not (ws / "c.txt").exists()
    turns = record["iterations"]
    assert len(turns) == 1, "a budget refusal is not retried"
    assert len(turns[0]["commands"]) == 2
    assert any(c["status"] == 400 and "budget exceeded" in (c["error"] or "") for c in turns[0]["provider_call_costs"])


def test_crashing_cli_is_an_error_with_the_partial_turn(kind: str, tmp_path: Path) -> None:
    """A CLI that dies mid-turn: ERROR, its stderr in the message, the events it printed kept."""
    if kind == "antigravity":
        return crash_the_harness(tmp_path)
    fake = tmp_path / "dying-cli"
    tool = {
        "codex": '{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"ls"}}',
        "opencode": '{"type":"step_start","sessionID":"s1","part":{}}',
        "pi": '{"type":"tool_execution_start","toolCallId":"c1","toolName":"bash","args":{"command":"ls"}}',
        "gemini-cli": '{"type":"tool_use","tool_name":"run_shell_command","tool_id":"c1","parameters":{}}',
    }[kind]
    fake.write_text(f"#!/bin/sh\necho '{tool}'\necho 'segfault in the agent' >&2\nexit 139\n", encoding="utf-8")
    fake.chmod(0o755)  # as installed CLIs are: the unit runs as its own user, not as the harness's
    doc = agent_task(
        kind, "crash", "Anything.", [{"type": "file_exists", "path": "x", "description": "x"}], cli_path=str(fake)
    )
    record, proc = run_task(tmp_path, doc, {"steps": [{"reply": "never reached"}]})
    assert record["final_status"] == "ERROR", explain(record, proc)
    assert "139" in (record["error_message"] or "")
    turn = record["iterations"][-1]
    assert turn["crashed"]
    if kind in ("codex", "pi", "gemini-cli"):
        assert [c["status"] for c in turn["commands"]] == ["unresolved"]


def crash_the_harness(tmp_path: Path) -> None:
    """Antigravity's harness is not a CLI the task can replace: a command kills it mid-turn instead."""
    doc = agent_task("antigravity", "crash", "Anything.", [{"type": "file_exists", "path": "x", "description": "x"}])
    # The command's shell is a child of the harness: kill its parent from inside.
    steps = [{"run_command": "echo ok > first.txt"}, {"run_command": "kill -KILL $PPID"}]
    record, proc = run_task(tmp_path, doc, {"steps": [*steps, {"reply": "never reached"}]})
    assert record["final_status"] == "ERROR", explain(record, proc)
    assert "harness" in (record["error_message"] or "")
    turn = record["iterations"][-1]
    assert turn["crashed"]
    assert [c["status"] for c in turn["commands"]][:1] == ["success"], "the partial turn keeps the finished call"


def test_record_then_replay(kind: str, tmp_path: Path) -> None:
    from coder_eval.agents.registry import AGENTS
    from coder_eval.gateway.script import ScriptedModel
    from coder_eval.gateway.script_file import load_script
    from coder_eval.gateway.server import GatewayThread

    doc = agent_task(
        kind,
        "rec-replay",
        "Make data.txt and count its lines.",
        [
            {"type": "file_contains", "path": "data.txt", "includes": ["two"], "description": "data"},
            {"type": "command_executed", "tool_name": "Bash", "command_pattern": "wc -l", "description": "counted"},
        ],
    )
    script = {
        "steps": [
            {"write_file": {"path": "data.txt", "content": "one\ntwo\n"}},
            {"run_command": "wc -l < data.txt"},
            {"reply": "two lines"},
        ]
    }
    task = write_task(tmp_path, doc, script)
    keep = ("--preservation-mode", "DIRECT_WRITE")
    with GatewayThread("script") as provider:
        model = ScriptedModel(load_script(tmp_path / "task.script.yaml"), vocabulary=AGENTS.get(kind).tools)
        route = provider.open_route("provider", source=model)
        rec = run_cli(tmp_path, task, "rec", "-b", "record", *keep, env={UPSTREAM_VAR[kind]: route.base_url})
        provider_calls = len([c for c in route.calls if not c.side_call])
    recorded = task_json(tmp_path / "rec", "rec-replay")
    assert recorded["final_status"] == "SUCCESS", explain(recorded, rec)
    assert provider_calls == 3
    cassettes = tmp_path / "rec" / "cassettes"
    rep = run_cli(tmp_path, task, "rep", "-b", "replay", "--cassettes", str(cassettes), *keep)
    replayed = task_json(tmp_path / "rep", "rec-replay")
    assert replayed["final_status"] == "SUCCESS", explain(replayed, rep)
    assert (workspace(replayed) / "data.txt").read_text() == "one\ntwo\n"
    assert trajectory(replayed) == trajectory(recorded)
    scores = [(r["criterion_type"], r["score"]) for r in replayed["success_criteria_results"]]
    assert scores == [(r["criterion_type"], r["score"]) for r in recorded["success_criteria_results"]]
