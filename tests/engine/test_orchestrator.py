"""The per-task pipeline: statuses, pre_run/post_run, retries, timeouts, budgets, records."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Literal

import pytest

from coder_eval.agents.kind import AgentKind
from coder_eval.agents.registry import AGENTS, declare_agent
from coder_eval.engine.agent_phase import RetryPolicy
from coder_eval.models.agent import AGENT_CONFIGS, BaseAgentConfig
from coder_eval.models.status import FinalStatus
from coder_eval.sandbox.drivers import PreservationMode
from conftest import base_task

WRITE_HELLO = [{"command": "printf hello > out.txt"}]


def demo(command: str = "printf hello > out.txt", **fields):
    return {"type": "demo-script", "command": command, **fields}


def test_none_agent_with_pre_run_succeeds(run_task):
    result = run_task(base_task(pre_run=WRITE_HELLO))
    assert result.final_status is FinalStatus.SUCCESS
    assert result.weighted_score == 1.0
    assert result.pre_run_results[0].exit_code == 0
    assert result.iteration_count == 1 and result.total_token_usage.total_tokens == 0


def test_without_the_agents_part_it_is_a_failure_not_an_error(run_task):
    result = run_task(base_task())
    assert result.final_status is FinalStatus.FAILURE
    assert result.weighted_score == 0.0


def test_failing_pre_run_is_an_error_and_skips_the_rest(run_task):
    doc = base_task(pre_run=[{"command": "exit 3"}, {"command": "printf hello > out.txt"}])
    result = run_task(doc)
    assert result.final_status is FinalStatus.ERROR
    assert len(result.pre_run_results) == 1 and "exit code 3" in (result.error_message or "")
    assert result.iteration_count == 0


def test_pre_run_without_fail_on_error_continues(run_task):
    doc = base_task(pre_run=[{"command": "exit 3", "fail_on_error": False}, *WRITE_HELLO])
    assert run_task(doc).final_status is FinalStatus.SUCCESS


def test_pre_run_timeout(run_task):
    result = run_task(base_task(pre_run=[{"command": "sleep 10", "timeout": 1}]))
    assert result.final_status is FinalStatus.ERROR
    assert "timed out" in (result.error_message or "")


def test_pre_run_output_is_truncated_at_100kb(run_task):
    doc = base_task(pre_run=[{"command": "head -c 300000 /dev/zero | tr '\\0' x; printf hello > out.txt"}])
    result = run_task(doc)
    assert 100 * 1024 <= len(result.pre_run_results[0].stdout) < 101 * 1024


def test_post_run_runs_after_grading_and_is_informational(run_task):
    doc = base_task(pre_run=WRITE_HELLO, post_run=[{"command": "rm out.txt; exit 1"}])
    result = run_task(doc)
    assert result.final_status is FinalStatus.SUCCESS  # graded before post_run removed the file
    assert result.post_run_results[0].exit_code == 1


def test_demo_agent_work_is_graded_and_its_tool_calls_recorded(run_task):
    doc = base_task(
        agent=demo(),
        success_criteria=[
            {"type": "file_contains", "path": "out.txt", "includes": ["hello"], "description": "file"},
            {"type": "command_executed", "tool_name": "Bash", "command_pattern": "printf hello", "description": "ran"},
            {"type": "commands_efficiency", "expected_commands": 2, "description": "cheap"},
        ],
    )
    result = run_task(doc)
    assert result.final_status is FinalStatus.SUCCESS, result.error_message
    assert [c.score for c in result.success_criteria_results] == [1.0, 1.0, 1.0]
    assert result.actual_commands == 1 and result.expected_commands == 2
    assert result.iterations[0].commands[0].parameters["command"] == "printf hello > out.txt"


def _alive(pid: int) -> bool:
    """Running (a zombie awaiting its reaper counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def test_turn_timeout_kills_the_process_group_and_keeps_the_partial_turn(run_task, tmp_path):
    pidfile = tmp_path / "child.pid"
    doc = base_task(
        agent=demo(f"printf hello > out.txt; sleep 60 & echo $! > {pidfile}; wait"),
        run_limits={"turn_timeout": 1},
        sandbox={"driver": "tempdir"},  # the pidfile is a host path (namespaced drivers: tests/hostile)
    )
    start = time.monotonic()
    result = run_task(doc)
    assert time.monotonic() - start < 20
    assert result.final_status is FinalStatus.TIMEOUT
    turn = result.iterations[-1]
    assert turn.crashed and "timed out" in (turn.crash_reason or "")
    assert turn.commands and turn.commands[0].status == "unresolved"  # the in-flight call is kept
    time.sleep(0.2)
    assert not _alive(int(pidfile.read_text()))
    diagnostics = {r.criterion_type: r for r in result.post_failure_criteria_results}
    assert diagnostics["file_contains"].score == 1.0  # evidence only; the verdict stays TIMEOUT


def test_task_timeout(run_task):
    result = run_task(base_task(agent=demo("sleep 30"), run_limits={"task_timeout": 1}))
    assert result.final_status is FinalStatus.TIMEOUT
    assert "task timed out" in (result.error_message or "")


def test_transient_failure_is_retried_by_the_harness(run_task):
    result = run_task(base_task(agent=demo(fail_times=1)), options={"retry": RetryPolicy(2, 0.01)})
    assert result.final_status is FinalStatus.SUCCESS
    assert [t.crashed for t in result.iterations] == [True, False]


def test_retries_are_bounded(run_task):
    result = run_task(base_task(agent=demo(fail_times=5)), options={"retry": RetryPolicy(2, 0.01)})
    assert result.final_status is FinalStatus.ERROR
    assert len(result.iterations) == 3


def test_crash_is_an_error_with_read_only_diagnostics(run_task):
    doc = base_task(
        agent=demo(crash=True),
        pre_run=WRITE_HELLO,
        success_criteria=[
            {"type": "file_exists", "path": "out.txt", "description": "file"},
            {"type": "run_command", "command": "true", "description": "cmd"},
        ],
    )
    result = run_task(doc)
    assert result.final_status is FinalStatus.ERROR and result.weighted_score == 0.0
    statuses = [(r.criterion_type, r.evaluation_status) for r in result.post_failure_criteria_results]
    assert statuses == [("file_exists", "evaluated"), ("run_command", "not_evaluated")]
    assert not result.success_criteria_results


def test_token_budget(run_task):
    result = run_task(base_task(agent=demo(input_tokens=800, output_tokens=100), run_limits={"max_total_tokens": 500}))
    assert result.final_status is FinalStatus.TOKEN_BUDGET_EXCEEDED
    assert result.total_token_usage.total_tokens == 900


def test_cost_budget(run_task):
    agent = demo(input_tokens=1_000_000, output_tokens=0, model="claude-sonnet-4-5")
    result = run_task(base_task(agent=agent, run_limits={"max_usd": 1.0}))
    assert result.final_status is FinalStatus.COST_BUDGET_EXCEEDED
    assert result.total_token_usage.total_cost_usd == pytest.approx(3.0)


def test_unpriced_model_cost_is_none_not_zero(run_task):
    result = run_task(base_task(agent=demo(input_tokens=10, model="mystery-model")))
    assert result.total_token_usage.total_cost_usd is None


def test_max_turns_exhausted_only_when_the_criteria_fail(run_task):
    ok = run_task(base_task(agent=demo(exhaust_turns=True)))
    assert ok.final_status is FinalStatus.SUCCESS and ok.max_turns_exhausted
    bad = run_task(base_task(task_id="demo2", agent=demo("true", exhaust_turns=True)))
    assert bad.final_status is FinalStatus.MAX_TURNS_EXHAUSTED


def test_execute_leaves_rows_ungraded(run_task):
    result = run_task(base_task(pre_run=WRITE_HELLO), grade=False)
    assert result.final_status is FinalStatus.NOT_GRADED
    assert result.weighted_score is None and not result.success_criteria_results


def test_token_invariant_holds_per_turn(run_task):
    result = run_task(base_task(agent=demo(input_tokens=120, output_tokens=30)))
    for turn in result.iterations:
        summed = sum(m.token_usage.total_tokens for m in turn.messages if m.role != "user")
        assert summed == turn.token_usage.total_tokens


@pytest.mark.parametrize("mode", list(PreservationMode))
def test_preservation_modes(run_task, tmp_path, mode):
    result = run_task(base_task(pre_run=WRITE_HELLO), options={"preservation": mode})
    artifacts = tmp_path / "run" / "default" / "demo" / "00" / "artifacts"
    if mode is PreservationMode.NONE:
        assert not artifacts.exists() and result.sandbox_path is None
    else:
        assert (artifacts / "out.txt").read_text() == "hello"
    assert not list((tmp_path / "run" / ".sandboxes").glob("*")) if (tmp_path / "run" / ".sandboxes").exists() else True


def test_secrets_never_reach_the_run_directory(run_task, tmp_path, monkeypatch):
    secret = "sk-ant-test-0123456789abcdef"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    doc = base_task(
        agent=demo("env; printf hello > out.txt"),
        pre_run=[{"command": "env > env.txt; echo $ANTHROPIC_API_KEY > key.txt"}],
        post_run=[{"command": "env"}],
    )
    result = run_task(doc)
    assert result.final_status is FinalStatus.SUCCESS
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_reference_is_never_in_the_artifacts(run_task, tmp_path):
    ref = tmp_path / "tasks" / "reference"
    ref.mkdir(parents=True)
    (ref / "solution.py").write_text("REFERENCE_CANARY = 1\n")
    doc = base_task(
        reference={"directory": "reference"},
        pre_run=WRITE_HELLO,
        success_criteria=[
            {
                "type": "run_command",
                "command": 'grep -q REFERENCE_CANARY "$REFERENCE_DIR/solution.py"',
                "description": "criteria can read the staged reference",
            },
        ],
    )
    result = run_task(doc)
    assert result.final_status is FinalStatus.SUCCESS
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert b"REFERENCE_CANARY" not in path.read_bytes() or path.name == "task.json", path


def test_records_are_complete_json(run_task, tmp_path):
    run_task(base_task(pre_run=WRITE_HELLO))
    record = json.loads((tmp_path / "run" / "default" / "demo" / "00" / "task.json").read_text())
    assert record["final_status"] == "SUCCESS"
    assert (tmp_path / "run" / "default" / "demo" / "00" / "task.log").read_text().strip()
    assert not list(Path(tmp_path / "run").rglob(".*.tmp"))


class SchemaOnlyConfig(BaseAgentConfig):
    type: Literal["schema-only-test"] = "schema-only-test"


def test_agent_kind_without_a_runner_is_an_error_not_a_crash(run_task):
    # Every built-in kind has a runner now: a kind declared with its schema only stands in.
    with AGENTS.scratch(), AGENT_CONFIGS.scratch():
        declare_agent(AgentKind(name="schema-only-test", config=SchemaOnlyConfig))
        result = run_task(base_task(agent={"type": "schema-only-test"}))
    assert result.final_status is FinalStatus.ERROR
    assert "no implementation" in (result.error_message or "")


def test_unavailable_sandbox_driver_is_a_task_error(run_task, monkeypatch):
    monkeypatch.setattr("coder_eval.sandbox.docker.docker_available", lambda: False)
    result = run_task(base_task(sandbox={"driver": "docker"}))
    assert result.final_status is FinalStatus.ERROR
    assert "docker" in (result.error_message or "")
