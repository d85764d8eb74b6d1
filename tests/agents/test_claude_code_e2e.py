"""End to end: the real Claude Code CLI (bundled with claude-agent-sdk) on the scripted model.

Each test writes a task and its script into tmp_path, runs `coder-eval run` as a
subprocess and reads task.json. No network, no API key: the run's gateway plays the script.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.agents.claude_code.options import bundled_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here"),
]

BUCKETS = ("uncached_input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
CLI_TIMEOUT = 180


def write_task(root: Path, doc: dict[str, Any], script: dict[str, Any], name: str = "task") -> Path:
    """`<name>.yaml` and `<name>.script.yaml` (the script file the gateway looks for) in `root`."""
    root.mkdir(parents=True, exist_ok=True)
    task = root / f"{name}.yaml"
    task.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    (root / f"{name}.script.yaml").write_text(yaml.safe_dump(script, sort_keys=False), encoding="utf-8")
    return task


def claude_task(task_id: str, prompt: str, criteria: list[dict[str, Any]], **agent: Any) -> dict[str, Any]:
    config = {
        "type": "claude-code",
        "permission_mode": "acceptEdits",
        "allowed_tools": ["Read", "Write", "Edit", "Bash"],
        "setting_sources": [],
        **agent,
    }
    return {
        "task_id": task_id,
        "description": f"e2e: {task_id}",
        "initial_prompt": prompt,
        "agent": config,
        "success_criteria": criteria,
    }


def run_cli(
    cwd: Path, task: Path, run_dir: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "coder_eval", "run", str(task), "--run-dir", run_dir, *args]
    full_env = {**os.environ, **(env or {})}
    full_env.pop("API_BACKEND", None)
    return subprocess.run(cmd, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=CLI_TIMEOUT)


def task_json(run_dir: Path, task_id: str) -> dict[str, Any]:
    path = run_dir / "default" / task_id / "00" / "task.json"
    assert path.is_file(), f"no task.json at {path}; run dir holds {sorted(p.name for p in run_dir.rglob('*'))}"
    return json.loads(path.read_text(encoding="utf-8"))


def run_task(
    tmp_path: Path, doc: dict[str, Any], script: dict[str, Any], *args: str, run_dir: str = "run"
) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    task = write_task(tmp_path, doc, script)
    proc = run_cli(tmp_path, task, run_dir, "-b", "script", "--preservation-mode", "DIRECT_WRITE", *args)
    return task_json(tmp_path / run_dir, doc["task_id"]), proc


def workspace(record: dict[str, Any]) -> Path:
    """The sandbox the agent worked in (kept in place by DIRECT_WRITE)."""
    return Path(record["sandbox_path"])


def bucket_sum(usages: list[dict[str, Any]]) -> dict[str, int]:
    return {b: sum(int(u[b]) for u in usages) for b in BUCKETS}


def assert_token_invariant(record: dict[str, Any]) -> None:
    """Per turn the message buckets sum to the turn total; the gateway's total equals the agent's."""
    for turn in record["iterations"]:
        usages = [m["token_usage"] for m in turn["messages"] if m["role"] in ("assistant", "reconciliation")]
        assert bucket_sum(usages) == {b: turn["token_usage"][b] for b in BUCKETS}, turn["messages"]
    env = record["environment_info"]
    agent_total = sum(u["input_tokens"] + u["output_tokens"] for u in (t["token_usage"] for t in record["iterations"]))
    gateway = env["gateway_usage"]
    assert gateway["input_tokens"] + gateway["output_tokens"] == agent_total
    assert bucket_sum([record["total_token_usage"]]) == bucket_sum([gateway])
    assert "token_divergence" not in env


def explain(record: dict[str, Any], proc: subprocess.CompletedProcess[str]) -> str:
    return (
        f"status {record['final_status']}: {record.get('error_message')}\n"
        f"stdout: {proc.stdout[-3000:]}\nstderr: {proc.stderr[-3000:]}"
    )


# -- 1. write + run ------------------------------------------------------------------------------


def test_scripted_write_and_run(tmp_path: Path) -> None:
    doc = claude_task(
        "write-run",
        "Create app.py that prints hello, then run it.",
        [
            {"type": "file_contains", "path": "app.py", "includes": ["print('hello')"], "description": "file"},
            {"type": "command_executed", "tool_name": "Bash", "command_pattern": "python3? app.py", "description": "x"},
        ],
    )
    script = {
        "steps": [
            {"write_file": {"path": "app.py", "content": "print('hello')\n"}},
            {"run_command": {"command": "python3 app.py"}},
            {"reply": "done"},
        ]
    }
    record, proc = run_task(tmp_path, doc, script)
    assert record["final_status"] == "SUCCESS", explain(record, proc)
    assert proc.returncode == 0
    assert (workspace(record) / "app.py").read_text() == "print('hello')\n"
    assert [r["score"] for r in record["success_criteria_results"]] == [1.0, 1.0]

    (turn,) = record["iterations"]
    assert not turn["crashed"]
    assert turn["agent_output"] == "done"
    calls = [(c["tool_name"], c["status"]) for c in turn["commands"]]
    assert calls == [("Write", "success"), ("Bash", "success")]
    write, bash = turn["commands"]
    assert write["parameters"]["file_path"].endswith("/app.py")
    assert bash["parameters"]["command"] == "python3 app.py"
    assert bash["result_summary"].strip() == "hello"
    assert [c["tool_use_id"] for c in turn["commands"]] == ["call_0_0", "call_1_0"]

    env = record["environment_info"]
    assert env["gateway_calls"] == 3  # write, run, reply: no side calls
    assert [c["status"] for c in turn["provider_call_costs"]] == [200, 200, 200]
    assert_token_invariant(record)


# -- 2. skill from a plugin ----------------------------------------------------------------------


def make_plugin(root: Path) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "greeter", "version": "1.0.0", "description": "Greets people."}), encoding="utf-8"
    )
    skill = root / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        textwrap.dedent(
            """\
            ---
            name: greet
            description: Greet the user warmly. Use whenever the user asks for a greeting.
            ---

            # Greet

            Write `greeting.txt` containing `hello from the greet skill`.
            """
        ),
        encoding="utf-8",
    )
    return root


def test_skill_triggered_from_plugin(tmp_path: Path) -> None:
    plugin = make_plugin(tmp_path / "plugin")
    doc = claude_task(
        "skill-plugin",
        "Greet me, using your greet skill.",
        [
            {"type": "skill_triggered", "skill_name": "greet", "expected_skill": "greet", "description": "greet"},
            {"type": "file_exists", "path": "greeting.txt", "description": "greeted"},
        ],
        allowed_tools=["Read", "Write", "Bash", "Skill"],
        plugins=[{"type": "local", "path": str(plugin)}],
    )
    script = {
        "steps": [
            {"invoke_skill": {"name": "greet"}},
            {"write_file": {"path": "greeting.txt", "content": "hello from the greet skill\n"}},
            {"reply": "greeted"},
        ]
    }
    record, proc = run_task(tmp_path / "task", doc, script)
    assert record["final_status"] == "SUCCESS", explain(record, proc)
    (turn,) = record["iterations"]
    skill_calls = [c for c in turn["commands"] if c["tool_name"] == "Skill"]
    assert len(skill_calls) == 1, turn["commands"]
    assert skill_calls[0]["status"] == "success", skill_calls[0]
    assert skill_calls[0]["parameters"]["skill"].split(":")[-1] == "greet"
    result = next(r for r in record["success_criteria_results"] if r["criterion_type"] == "skill_triggered")
    assert result["score"] == 1.0 and result["observed_label"] == "yes", result


# -- 3. permission denial in default mode --------------------------------------------------------


def test_default_mode_records_permission_denial(tmp_path: Path) -> None:
    doc = claude_task(
        "denied",
        "Create notes.txt.",
        [{"type": "file_exists", "path": "notes.txt", "description": "written"}],
        permission_mode="default",
        allowed_tools=["Read"],
    )
    script = {"steps": [{"write_file": {"path": "notes.txt", "content": "secret\n"}}, {"reply": "tried"}]}
    record, proc = run_task(tmp_path, doc, script)
    assert record["final_status"] == "FAILURE", explain(record, proc)
    assert not (workspace(record) / "notes.txt").exists()
    (turn,) = record["iterations"]
    assert not turn["crashed"]
    (write,) = turn["commands"]
    assert (
        write["tool_name"] == "Write" and write["status"] == "refused"
    )  # the permission layer refused it: it never ran
    summary = turn["result_summary"]["result"] or ""
    assert "permission denials" in summary and "Write" in summary, summary


# -- 4. an injected 500 is retried by the harness ------------------------------------------------


def test_injected_500_is_retried(tmp_path: Path) -> None:
    doc = claude_task(
        "retry-500",
        "Create ok.txt.",
        [{"type": "file_exists", "path": "ok.txt", "description": "written"}],
    )
    script = {
        "steps": [
            {"error": {"status": 500, "times": 1}},
            {"write_file": {"path": "ok.txt", "content": "ok\n"}},
            {"reply": "done"},
        ]
    }
    record, proc = run_task(tmp_path, doc, script)
    assert record["final_status"] == "SUCCESS", explain(record, proc)
    first, second = record["iterations"]
    assert first["crashed"] and first["crash_reason"].startswith("transient:"), first["crash_reason"]
    assert "500" in first["crash_reason"] or "api_error" in first["crash_reason"]
    assert not second["crashed"]
    assert [c["tool_name"] for c in second["commands"]] == ["Write"]
    assert (workspace(record) / "ok.txt").read_text() == "ok\n"
    statuses = [c["status"] for t in record["iterations"] for c in t["provider_call_costs"]]
    assert statuses == [500, 200, 200]
    assert_token_invariant(record)


# -- 5. turn_timeout kills the CLI's process group -----------------------------------------------


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, or a pid now used by another program, counts as dead)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return raw.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def test_turn_timeout_kills_the_cli_and_its_shells(tmp_path: Path) -> None:
    doc = claude_task(
        "turn-timeout",
        "Wait a long time.",
        [{"type": "file_exists", "path": "never.txt", "description": "never"}],
    )
    doc["run_limits"] = {"turn_timeout": 5}
    doc["sandbox"] = {"driver": "tempdir"}  # the pids below are read on the host (see test_hostile for namespaces)
    # The Bash tool's shell notes itself, its parent (the CLI) and a background child, then waits.
    # Claude Code gives each command's shell a session of its own, outside the CLI's process group.
    command = (
        "echo $$ > shell.pid; echo $PPID > cli.pid; tr '\\0' ' ' < /proc/$PPID/cmdline > cli.cmd; "
        "sleep 120 & echo $! > child.pid; wait"
    )
    script = {"steps": [{"run_command": {"command": command}}, {"reply": "never"}]}
    started = time.monotonic()
    record, proc = run_task(tmp_path, doc, script)
    elapsed = time.monotonic() - started
    assert record["final_status"] == "TIMEOUT", explain(record, proc)
    (turn,) = record["iterations"]
    assert turn["crashed"] and "timed out after 5s" in turn["crash_reason"]
    assert turn["duration_seconds"] < 8, "the turn overran its timeout"
    assert elapsed < 30
    (bash,) = turn["commands"]
    assert bash["tool_name"] == "Bash" and bash["status"] == "unresolved"
    assert bash["parameters"]["command"] == command

    ws = workspace(record)
    assert "claude" in (ws / "cli.cmd").read_text()
    pids = {name: int((ws / f"{name}.pid").read_text()) for name in ("cli", "shell", "child")}
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    survivors = {name: pid for name, pid in pids.items() if alive(pid)}
    for pid in survivors.values():  # never leave them behind, even when the test fails
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert survivors == {}, f"outlived the turn timeout: {survivors}"


# -- 6. budget cut mid-turn ----------------------------------------------------------------------


def test_budget_cut_mid_turn(tmp_path: Path) -> None:
    doc = claude_task(
        "budget",
        "Write three files.",
        [{"type": "file_exists", "path": "c.txt", "description": "all three"}],
    )
    doc["run_limits"] = {"max_total_tokens": 1500}
    script = {
        "tokens": {"input": 1000, "output": 10},
        "steps": [
            {"write_file": {"path": "a.txt", "content": "a\n"}},
            {"write_file": {"path": "b.txt", "content": "b\n"}},
            {"write_file": {"path": "c.txt", "content": "c\n"}},
            {"reply": "done"},
        ],
    }
    record, proc = run_task(tmp_path, doc, script)
    assert record["final_status"] == "TOKEN_BUDGET_EXCEEDED", explain(record, proc)
    ws = workspace(record)
    assert (ws / "a.txt").exists() and (ws / "b.txt").exists() and not (ws / "c.txt").exists()
    turns = record["iterations"]
    assert len(turns) == 1, "a budget refusal is not retried by the harness"
    (turn,) = turns
    assert turn["crashed"] and "budget exceeded" in turn["crash_reason"]
    assert [c["tool_name"] for c in turn["commands"]] == ["Write", "Write"]
    calls = turn["provider_call_costs"]
    # The third call is refused. Claude Code answers a 400 by resending a few variants of the same
    # request (without thinking display, then without tool search); each is refused and recorded too.
    assert [c["status"] for c in calls[:3]] == [200, 200, 400]
    assert all(c["status"] == 400 and "budget exceeded" in c["error"] for c in calls[2:])
    assert all(c["token_usage"]["input_tokens"] == 0 for c in calls[2:])
    assert record["environment_info"]["gateway_usage"]["input_tokens"] == 2000
    assert "budget" in (record["error_message"] or "")


# -- 7. record against a scripted provider, then replay offline ----------------------------------


def trajectory(record: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Tool calls in order, with the run's own sandbox path written as <ws>."""
    ws = str(workspace(record))
    return [
        (c["tool_name"], json.dumps(c["parameters"], sort_keys=True).replace(ws, "<ws>"), c["status"])
        for turn in record["iterations"]
        for c in turn["commands"]
    ]


def test_record_then_replay(tmp_path: Path) -> None:
    from coder_eval.agents.vocabularies import CLAUDE_CODE_TOOLS
    from coder_eval.gateway.script import ScriptedModel
    from coder_eval.gateway.script_file import load_script
    from coder_eval.gateway.server import GatewayThread

    doc = claude_task(
        "rec-replay",
        "Make data.txt and count its lines.",
        [
            {"type": "file_contains", "path": "data.txt", "includes": ["two"], "description": "data"},
            {"type": "command_executed", "tool_name": "Bash", "command_pattern": "wc -l", "description": "counted"},
        ],
        system_prompt_file="prompt.md",
    )
    (tmp_path / "prompt.md").write_text("Always count lines with wc. MARKER-7c1e\n", encoding="utf-8")
    script = {
        "steps": [
            {"write_file": {"path": "data.txt", "content": "one\ntwo\n"}},
            {"run_command": {"command": "wc -l < data.txt"}},
            {"reply": "two lines"},
        ]
    }
    task = write_task(tmp_path, doc, script)
    keep = ("--preservation-mode", "DIRECT_WRITE")
    provider = GatewayThread("script")
    provider.start()
    try:
        # The stand-in provider learns the agent's working directory from its prompt, as a model would.
        model = ScriptedModel(load_script(tmp_path / "task.script.yaml"), vocabulary=CLAUDE_CODE_TOOLS)
        route = provider.open_route("provider", source=model)
        env = {"CODER_EVAL_UPSTREAM_ANTHROPIC": route.base_url}
        rec = run_cli(tmp_path, task, "rec", "-b", "record", *keep, env=env)
        provider_calls = len(route.calls)
    finally:
        provider.stop()
    recorded = task_json(tmp_path / "rec", "rec-replay")
    assert recorded["final_status"] == "SUCCESS", explain(recorded, rec)
    assert provider_calls == recorded["environment_info"]["gateway_calls"] == 3
    cassettes = tmp_path / "rec" / "cassettes"
    entries = sorted(cassettes.rglob("*.json"))
    assert len(entries) == 3
    first = json.loads(entries[0].read_text(encoding="utf-8"))
    assert "MARKER-7c1e" in json.dumps(first["request"]), "system_prompt_file did not reach the model"

    write = recorded["iterations"][0]["commands"][0]
    assert write["parameters"]["file_path"] == str(workspace(recorded) / "data.txt")

    rep = run_cli(tmp_path, task, "rep", "-b", "replay", "--cassettes", str(cassettes), *keep)
    replayed = task_json(tmp_path / "rep", "rec-replay")
    assert replayed["final_status"] == "SUCCESS", explain(replayed, rep)
    # Claude Code writes by absolute path: the replay writes into its own sandbox, not the recorded one.
    assert (workspace(replayed) / "data.txt").read_text() == "one\ntwo\n"
    assert trajectory(replayed) == trajectory(recorded)
    assert [c["tool_name"] for c in replayed["iterations"][0]["commands"]] == ["Write", "Bash"]
    assert [t["agent_output"] for t in replayed["iterations"]] == [t["agent_output"] for t in recorded["iterations"]]
    assert replayed["weighted_score"] == recorded["weighted_score"] == 1.0
    scores = [(r["criterion_type"], r["score"]) for r in replayed["success_criteria_results"]]
    assert scores == [(r["criterion_type"], r["score"]) for r in recorded["success_criteria_results"]]
    assert replayed["total_token_usage"] == recorded["total_token_usage"]


def test_turn_cap_is_a_clean_stop_that_is_still_graded(tmp_path: Path) -> None:
    """max_turns: the CLI stops after two turns; the task is graded, not an error."""
    task = tmp_path / "capped.yaml"
    task.write_text(
        "task_id: capped\ndescription: turn cap\ninitial_prompt: write three files\n"
        "agent: {type: claude-code, permission_mode: acceptEdits, allowed_tools: [Read, Write, Bash], "
        "setting_sources: []}\nrun_limits: {max_turns: 2}\n"
        "success_criteria:\n  - {type: file_exists, path: c.txt, description: third file}\n"
    )
    (tmp_path / "capped.script.yaml").write_text(
        "steps:\n  - write_file: {path: a.txt, content: a}\n  - write_file: {path: b.txt, content: b}\n"
        "  - write_file: {path: c.txt, content: c}\n  - reply: done\n"
    )
    run_dir = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "run", str(task), "-b", "script", "--run-dir", str(run_dir)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    record = json.loads(next(run_dir.rglob("task.json")).read_text())
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert record["final_status"] == "MAX_TURNS_EXHAUSTED" and record["max_turns_exhausted"] is True
    assert record["error_message"] is None


def test_missing_script_is_a_clear_error(tmp_path: Path) -> None:
    """Under --backend script a task with no script is refused before anything starts, naming the file to write."""
    task = tmp_path / "lonely.yaml"
    task.write_text(
        "task_id: lonely\ndescription: no script\ninitial_prompt: do it\n"
        "agent: {type: claude-code, setting_sources: []}\n"
        "success_criteria:\n  - {type: file_exists, path: x, description: x}\n"
    )
    run_dir = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "run", str(task), "-b", "script", "--run-dir", str(run_dir)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    message = " ".join(proc.stderr.split())
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "no script for task lonely" in message and "lonely.script.yaml" in message
    assert not run_dir.exists()
