"""Sample task results covering every status category, and the run summary built from them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from coder_eval.models.results import CriterionResult, EvaluationResult
from coder_eval.models.run import RunSummary, SkippedTask
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import CommandTelemetry, TokenUsage, TurnRecord
from coder_eval.records.summary import build_run_summary

RUN_ID = "2026-11-30_10-00-00"
START = datetime(2026, 11, 30, 10, 0, 0, tzinfo=UTC)

ResultFactory = Callable[..., EvaluationResult]


def make_result(task_id: str, status: FinalStatus, **fields: Any) -> EvaluationResult:
    """An EvaluationResult with sensible defaults; any field can be overridden."""
    duration = fields.pop("duration_seconds", 12.5)
    values: dict[str, Any] = {
        "task_id": task_id,
        "final_status": status,
        "started_at": START,
        "completed_at": START + timedelta(seconds=duration),
        "duration_seconds": duration,
        "weighted_score": 1.0,
        "iteration_count": 1,
    }
    values.update(fields)
    return EvaluationResult(**values)


def _turn(iteration: int, *tools: str) -> TurnRecord:
    return TurnRecord(
        iteration=iteration,
        duration_seconds=4.0,
        token_usage=TokenUsage(uncached_input_tokens=1000, output_tokens=200),
        commands=[
            CommandTelemetry(tool_name=tool, parameters={"command": f"run {tool}"}, status="success", sequence=n)
            for n, tool in enumerate(tools, 1)
        ],
    )


def _sample_results() -> dict[str, EvaluationResult]:
    failing_criteria = [
        CriterionResult(
            criterion_type="file_exists",
            description="report.txt is written",
            score=0.0,
            details="no file matched report.txt",
        ),
        CriterionResult(
            criterion_type="commands_efficiency",
            description="uses few commands",
            score=0.2,
            weight=0.0,
            gating=False,
            details="took 12 commands, expected 3",
        ),
        CriterionResult(
            criterion_type="llm_judge",
            description="code quality",
            evaluation_status="not_evaluated",
            details="judge skipped",
        ),
        CriterionResult(criterion_type="run_command", description="tests pass", score=1.0),
    ]
    return {
        "success": make_result(
            "hello-world",
            FinalStatus.SUCCESS,
            success_criteria_results=[CriterionResult(criterion_type="file_exists", description="ok", score=1.0)],
            total_token_usage=TokenUsage(uncached_input_tokens=2000, output_tokens=500, total_cost_usd=0.05),
            iterations=[_turn(1, "Bash", "Write")],
        ),
        "failure": make_result(
            "write-report",
            FinalStatus.FAILURE,
            weighted_score=0.4,
            success_criteria_results=failing_criteria,
            total_token_usage=TokenUsage(uncached_input_tokens=1000, output_tokens=300, total_cost_usd=0.03),
            judge_cost_usd=0.01,
        ),
        "error": make_result(
            "crashy",
            FinalStatus.ERROR,
            weighted_score=0.0,
            error_message="Sandbox crashed while starting the agent",
            error_details="Traceback: boom",
            total_token_usage=TokenUsage(uncached_input_tokens=500, output_tokens=10),
        ),
        "ungraded": make_result("execute-only", FinalStatus.NOT_GRADED, weighted_score=None),
        "dataset": make_result(
            "qa-suite.row-3",
            FinalStatus.SUCCESS,
            weighted_score=0.95,
            suite_id="qa-suite",
            row_id="row-3",
        ),
        "replicate": make_result(
            "hello-world",
            FinalStatus.TIMEOUT,
            variant_id="treatment",
            replicate_index=1,
            weighted_score=0.5,
            duration_seconds=184.0,
            error_message="task timed out after 180s",
        ),
    }


@pytest.fixture
def results() -> dict[str, EvaluationResult]:
    """One result per interesting case, keyed by a short name."""
    return _sample_results()


@pytest.fixture
def summary(results: dict[str, EvaluationResult]) -> RunSummary:
    skipped = [SkippedTask(path="tasks/broken.yaml", reason="invalid YAML on line 3")]
    return build_run_summary(RUN_ID, list(results.values()), skipped=skipped)


@pytest.fixture
def result_factory() -> ResultFactory:
    """`make_result` for tests that need one custom result."""
    return make_result
