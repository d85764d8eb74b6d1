"""Weighted score, gating, informational criteria and task status."""

from __future__ import annotations

import pytest

from coder_eval.criteria.grading import Grade
from coder_eval.criteria.scoring import all_gating_passed, weighted_score
from coder_eval.models.results import CriterionResult
from coder_eval.models.status import FinalStatus


def r(score: float, weight: float = 1.0, threshold: float = 0.9, evaluated: bool = True) -> CriterionResult:
    return CriterionResult(
        criterion_type="file_exists",
        score=score,
        weight=weight,
        gating=weight > 0,
        pass_threshold=threshold,
        evaluation_status="evaluated" if evaluated else "not_evaluated",
    )


@pytest.mark.parametrize(
    ("results", "score"),
    [
        ([r(1.0), r(0.0)], 0.5),
        ([r(1.0, 3), r(0.0, 1)], 0.75),
        ([r(1.0, 2), r(0.5, 2)], 0.75),
        ([r(1.0), r(0.0, 0)], 1.0),  # informational excluded from the score
        ([r(1.0), r(0.0, evaluated=False)], 1.0),  # not evaluated excluded
        ([r(0.4, 0), r(0.6, 0)], 0.5),  # only informational: plain mean
        ([r(0.0, evaluated=False)], None),
        ([], None),
    ],
)
def test_weighted_score(results, score):
    assert weighted_score(results) == (None if score is None else pytest.approx(score))


@pytest.mark.parametrize(
    ("results", "passed"),
    [
        ([r(1.0), r(0.95)], True),
        ([r(1.0), r(0.85)], False),
        ([r(0.85, threshold=0.8)], True),
        ([r(1.0), r(0.0, weight=0)], True),  # a failing informational criterion never fails the task
        ([r(0.9)], True),  # at the threshold passes
    ],
)
def test_gate(results, passed):
    assert all_gating_passed(results) is passed


@pytest.mark.parametrize(
    ("results", "status"),
    [
        ([r(1.0)], FinalStatus.SUCCESS),
        ([r(0.2)], FinalStatus.FAILURE),
        ([r(1.0, weight=0)], FinalStatus.NOT_GRADED),
        ([r(0.0, evaluated=False)], FinalStatus.NOT_GRADED),
    ],
)
def test_status(results, status):
    assert Grade(results).status is status


def test_config_error_wins():
    assert Grade([r(1.0)], config_errors=["bad path"]).status is FinalStatus.ERROR


def test_outcome_labels():
    assert r(1.0).outcome == "pass"
    assert r(0.1).outcome == "fail"
    assert r(0.1, weight=0).outcome == "info"
    assert r(0.0, evaluated=False).outcome == "skipped"


def test_huge_weights_do_not_overflow():
    assert weighted_score([r(1.0, 1e308), r(0.0, 1e308)]) == pytest.approx(0.5)
