"""Builders for experiment rows: a clearly better arm, indistinguishable arms, and odd cases."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import TokenUsage

START = datetime(2026, 11, 30, 10, 0, 0, tzinfo=UTC)
NOISE = (-0.04, 0.0, 0.04)
"""Replicate offsets: three repeats per task spread symmetrically around the task's level."""

RowFactory = Callable[..., EvaluationResult]


def row(
    task_id: str, variant_id: str, score: float | None, replicate_index: int = 0, **fields: Any
) -> EvaluationResult:
    """One replicate row; status follows the score (>= 0.5 succeeds) unless given."""
    status = fields.pop("final_status", None)
    if status is None:
        status = (
            FinalStatus.NOT_GRADED if score is None else (FinalStatus.SUCCESS if score >= 0.5 else FinalStatus.FAILURE)
        )
    values: dict[str, Any] = {
        "task_id": task_id,
        "variant_id": variant_id,
        "replicate_index": replicate_index,
        "final_status": status,
        "started_at": START,
        "duration_seconds": 10.0,
        "weighted_score": score,
        "total_token_usage": TokenUsage(uncached_input_tokens=100, output_tokens=50),
    }
    values.update(fields)
    return EvaluationResult(**values)


def arm(variant_id: str, levels: list[float]) -> list[EvaluationResult]:
    """Three replicates per task at `level + NOISE[i]`, one task per level (task-0, task-1, …)."""
    return [
        row(f"task-{t}", variant_id, round(level + offset, 6), i)
        for t, level in enumerate(levels)
        for i, offset in enumerate(NOISE)
    ]


@pytest.fixture
def clear_win() -> list[EvaluationResult]:
    """A scores about 0.3 and B about 0.9 on each of six tasks, three replicates each."""
    return arm("A", [0.28, 0.31, 0.33, 0.27, 0.30, 0.32]) + arm("B", [0.88, 0.93, 0.90, 0.86, 0.92, 0.91])


@pytest.fixture
def indistinguishable() -> list[EvaluationResult]:
    """B beats A on three tasks and loses on three by the same margins: no real difference."""
    levels_a = [0.50, 0.60, 0.40, 0.70, 0.55, 0.45]
    shifts = [0.10, -0.10, 0.05, -0.05, 0.08, -0.08]
    return arm("A", levels_a) + arm("B", [a + s for a, s in zip(levels_a, shifts, strict=True)])


@pytest.fixture(name="row")
def row_fixture() -> RowFactory:
    """The `row` builder, for tests that make their own rows."""
    return row
