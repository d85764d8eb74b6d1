"""The --max-cost-usd guard: what counts as spend, when it is reached, and what it says."""

from __future__ import annotations

from datetime import UTC, datetime

from coder_eval.engine.spend import SpendLimit, unit_cost
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import TokenUsage


def _result(agent: float | None, judge: float | None = None) -> EvaluationResult:
    return EvaluationResult(
        task_id="t",
        final_status=FinalStatus.SUCCESS,
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        total_token_usage=TokenUsage(output_tokens=10, total_cost_usd=agent),
        judge_cost_usd=judge,
    )


def test_unit_cost_adds_judges_and_keeps_unknown_unknown() -> None:
    assert unit_cost(_result(0.25, 0.05)) == 0.30
    assert unit_cost(_result(None, 0.05)) is None


def test_limit_is_reached_at_the_limit_and_unpriced_units_are_named() -> None:
    spend = SpendLimit(0.5)
    spend.add_all([_result(0.2), _result(None)])
    assert not spend.reached and spend.unpriced_units == 1
    spend.add(_result(0.3))
    assert spend.reached and spend.units_seen == 3
    reason = spend.reason(4)
    assert "$0.5000 spent of --max-cost-usd 0.5" in reason and "4 unit(s) not launched" in reason
    assert "1 unit(s) had no price" in reason
