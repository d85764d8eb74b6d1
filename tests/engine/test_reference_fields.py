"""The reference system's 0.12 task fields, run through the orchestrator: each one changes what happens."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from coder_eval.criteria.grading import DISABLED_DETAILS
from coder_eval.engine.finalize import _efficiency
from coder_eval.models.status import FinalStatus
from coder_eval.models.task import TaskDefinition
from coder_eval.models.telemetry import CommandTelemetry, TurnRecord
from conftest import base_task

FILE_CHECK = {"type": "file_exists", "path": "out.txt", "description": "out.txt exists"}
WRITE_HELLO = [{"command": "printf hello > out.txt"}]


def demo(command: str = "printf hello > out.txt", **fields: Any) -> dict[str, Any]:
    return {"type": "demo-script", "command": command, **fields}


def test_disabled_judges_score_one_without_a_model_call(run_task) -> None:
    judges = [
        {"type": "llm_judge", "description": "llm", "prompt": "grade", "enabled": False},
        {"type": "agent_judge", "description": "agent", "prompt": "grade", "enabled": False},
        {
            "type": "system_one_judge",
            "description": "rubric",
            "prompt": "grade",
            "enabled": False,
            "questions": {"ok": {"type": "noul", "instructions": "is it ok?"}},
        },
    ]
    # No model link at all: an enabled judge would end the unit ERROR (no route), a disabled one never asks.
    result = run_task(base_task(agent=demo(), success_criteria=[FILE_CHECK, *judges]))
    assert result.final_status is FinalStatus.SUCCESS, result.error_message
    judged = result.success_criteria_results[1:]
    assert [(r.score, r.evaluation_status, r.details) for r in judged] == [(1.0, "evaluated", DISABLED_DETAILS)] * 3
    assert result.judge_cost_usd is None  # no judge call was made


def test_read_only_run_command_also_runs_after_a_crash(run_task) -> None:
    doc = base_task(
        agent=demo(crash=True),
        pre_run=WRITE_HELLO,
        success_criteria=[
            {"type": "run_command", "command": "cat out.txt", "read_only": True, "description": "inspect"},
            {"type": "run_command", "command": "true", "description": "ordinary"},
        ],
    )
    result = run_task(doc)
    assert result.final_status is FinalStatus.ERROR and result.weighted_score == 0.0
    inspected, ordinary = result.post_failure_criteria_results
    assert (inspected.evaluation_status, inspected.score) == ("evaluated", 1.0)
    assert ordinary.evaluation_status == "not_evaluated"
    assert not result.success_criteria_results  # diagnostics are evidence, never the score


def test_task_level_expected_commands_is_recorded_with_an_efficiency(run_task) -> None:
    result = run_task(base_task(agent=demo(), expected_commands=3, success_criteria=[FILE_CHECK]))
    assert (result.expected_commands, result.actual_commands, result.commands_efficiency) == (3, 1, 1.0)
    assert [r.criterion_type for r in result.success_criteria_results] == ["file_exists"]  # never scored


def test_expected_commands_efficiency_decays_past_the_budget() -> None:
    definition = TaskDefinition.model_validate(
        {**base_task(), "expected_commands": 2, "success_criteria": [FILE_CHECK]}
    )
    calls = [CommandTelemetry(tool_name="Bash") for _ in range(8)]
    state = SimpleNamespace(
        unit=SimpleNamespace(task=SimpleNamespace(definition=definition)),
        phase=SimpleNamespace(turns=[TurnRecord(iteration=1, commands=calls)]),
    )
    assert _efficiency(cast(Any, state), None) == (2, 0.25)


def test_load_warnings_reach_the_units_task_log(run_task, tmp_path: Path) -> None:
    result = run_task({**base_task(pre_run=WRITE_HELLO), "max_iterations": 3, "owner": "me"})
    assert result.final_status is FinalStatus.SUCCESS
    (log,) = (tmp_path / "run").rglob("task.log")
    text = log.read_text()
    assert "warning: demo.yaml: max_iterations (line" in text and "is no longer used and is ignored" in text
    assert "warning: demo.yaml: owner (line" in text and "unknown top-level key, ignored" in text
