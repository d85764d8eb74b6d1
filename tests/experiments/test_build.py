"""variant.json and experiment.json records built from experiment rows."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from coder_eval.experiments.build import build_experiment_result, build_variant_aggregate, pick_best
from coder_eval.models.experiment_results import ExperimentResult, VariantAggregate
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus

Row = Callable[..., EvaluationResult]


def test_variant_aggregate_counts_and_means(row: Row) -> None:
    rows = [
        row("t1", "A", 1.0, 0),
        row("t1", "A", 0.2, 1),
        row("t2", "A", None, 0, final_status=FinalStatus.ERROR),
        row("t2", "A", None, 1),
        row("t3", "A", 0.4, 0, final_status=FinalStatus.TOKEN_BUDGET_EXCEEDED),
        row("t3", "A", 0.0, 1, final_status=FinalStatus.COST_BUDGET_EXCEEDED, duration_seconds=30.0),
        row("t1", "B", 0.9, 0),
    ]
    aggregate = build_variant_aggregate("A", rows)
    assert aggregate.tasks_run == 6
    assert (aggregate.tasks_succeeded, aggregate.tasks_failed, aggregate.tasks_error, aggregate.tasks_not_graded) == (
        1,
        3,
        1,
        1,
    )
    assert aggregate.tasks_measured == 4
    assert aggregate.average_score == pytest.approx((1.0 + 0.2 + 0.4 + 0.0) / 4)
    assert aggregate.average_duration == pytest.approx((10.0 * 5 + 30.0) / 6)
    assert aggregate.total_tokens == 6 * 150
    assert aggregate.replicate_count == 2
    assert (aggregate.tasks_token_budget_exceeded, aggregate.tasks_cost_budget_exceeded) == (1, 1)
    assert aggregate.pass_rate == pytest.approx(1 / 5)  # graded rows only


def test_pass_rate_is_unknown_when_nothing_was_measured(row: Row) -> None:
    aggregate = build_variant_aggregate(
        "A", [row("t1", "A", None), row("t2", "A", None, final_status=FinalStatus.ERROR)]
    )
    assert aggregate.average_score is None
    assert aggregate.pass_rate is None
    empty = build_variant_aggregate("A", [])
    assert empty.pass_rate is None and empty.average_duration is None and empty.replicate_count == 0


def test_variant_aggregate_round_trips_with_computed_pass_rate(row: Row) -> None:
    aggregate = build_variant_aggregate("A", [row("t1", "A", 1.0), row("t2", "A", 0.0)])
    data = json.loads(aggregate.model_dump_json())
    assert data["pass_rate"] == 0.5
    assert VariantAggregate.model_validate(data) == aggregate


def test_best_variant_spread_and_replicates(clear_win: list[EvaluationResult]) -> None:
    result = build_experiment_result("exp", "demo", ["A", "B"], clear_win)
    assert [s.task_id for s in result.task_summaries] == [f"task-{i}" for i in range(6)]
    first = result.task_summaries[0]
    assert first.best_variant == "B" and not first.is_tie
    assert first.score_spread == pytest.approx(0.88 - 0.28)
    assert first.replicate_count == 3
    assert len(first.variant_results) == 6
    assert [(v.variant_id, v.replicate_index) for v in first.variant_results][:3] == [("A", 0), ("A", 1), ("A", 2)]
    assert all(v.replicate_count == 3 and v.total_tokens == 150 for v in first.variant_results)
    assert result.variant_aggregates["B"].average_score == pytest.approx(5.40 / 6)
    assert result.total_duration_seconds == pytest.approx(36 * 10.0)


def test_per_replicate_scores_in_replicate_order(row: Row) -> None:
    rows = [row("t1", "A", 0.3, 2), row("t1", "A", 0.1, 0), row("t1", "A", None, 1), row("t1", "B", 0.5, 0)]
    result = build_experiment_result("exp", "", ["A", "B"], rows)
    assert result.per_replicate_scores == {"A": {"t1": [0.1, 0.3]}, "B": {"t1": [0.5]}}
    summary = result.task_summaries[0]
    assert summary.scores_for("A") == [0.1, 0.3]
    assert summary.unmeasured_count("A") == 1
    assert summary.best_variant == "B"
    assert summary.score_spread == pytest.approx(0.3)


def test_ties_name_no_winner(row: Row) -> None:
    rows = [row("t1", "A", 0.6), row("t1", "B", 0.2, 0), row("t1", "B", 1.0, 1)]
    summary = build_experiment_result("exp", "", ["A", "B"], rows).task_summaries[0]
    assert summary.is_tie and summary.best_variant is None
    assert summary.score_spread == pytest.approx(0.0, abs=1e-12)


def test_pick_best_tolerance() -> None:
    assert pick_best({"A": 0.5, "B": 0.5 + 1e-10}) == (None, True)
    assert pick_best({"A": 0.5, "B": 0.5 + 1e-6}) == ("B", False)
    assert pick_best({}) == (None, False)
    assert pick_best({"only": 0.1}) == ("only", False)


def test_unmeasured_task_has_no_best_or_spread(row: Row) -> None:
    rows = [row("t1", "A", None), row("t1", "B", None, final_status=FinalStatus.ERROR), row("t2", "A", 0.4)]
    result = build_experiment_result("exp", "", ["A", "B"], rows)
    t1, t2 = result.task_summaries
    assert (t1.best_variant, t1.is_tie, t1.score_spread) == (None, False, None)
    assert (t2.best_variant, t2.score_spread) == ("A", 0.0)
    assert result.per_replicate_scores == {"A": {"t2": [0.4]}, "B": {}}


def test_unnamed_variants_are_appended_and_wall_clock_wins(row: Row) -> None:
    rows = [row("t1", "zeta", 0.1), row("t1", "A", 0.2), row("t1", "beta", 0.3)]
    result = build_experiment_result("exp", "", ["A"], rows, total_duration_seconds=5.0)
    assert result.variant_ids == ["A", "beta", "zeta"]
    assert result.total_duration_seconds == 5.0


def test_experiment_json_has_no_statistics_and_round_trips(clear_win: list[EvaluationResult]) -> None:
    result = build_experiment_result("exp", "demo", ["A", "B"], clear_win)
    text = result.model_dump_json()
    data = json.loads(text)
    assert set(data) == {
        "experiment_id",
        "description",
        "variant_ids",
        "task_summaries",
        "variant_aggregates",
        "total_duration_seconds",
        "per_replicate_scores",
        "quarantine",
        "adaptive",  # the stopping record of adaptive replicates: null for a fixed number of them
    }
    assert data["adaptive"] is None
    assert "confidence" not in text and "p_value" not in text
    assert set(data["task_summaries"][0]) == {
        "task_id",
        "variant_results",
        "best_variant",
        "is_tie",
        "score_spread",
        "replicate_count",
    }
    assert ExperimentResult.model_validate_json(text) == result
