"""Combine criterion results into a task score and verdict."""

from __future__ import annotations

from coder_eval.models.results import CriterionResult


def weighted_score(results: list[CriterionResult]) -> float | None:
    """sum(score*weight)/sum(weight) over evaluated gating criteria.

    With only informational criteria it is their plain mean; with nothing
    evaluated at all there is no score (None), never a fabricated zero.
    """
    evaluated = [r for r in results if r.evaluation_status == "evaluated"]
    gating = [r for r in evaluated if r.gating]
    if gating:
        top = max(r.weight for r in gating)  # normalise first: huge weights must not overflow to inf/nan
        total = sum(r.weight / top for r in gating)
        return sum(r.score * (r.weight / top) for r in gating) / total
    if evaluated:
        return sum(r.score for r in evaluated) / len(evaluated)
    return None


def all_gating_passed(results: list[CriterionResult]) -> bool:
    """Strict AND over evaluated gating criteria; informational ones never fail a task."""
    return all(r.passed for r in results if r.gating and r.evaluation_status == "evaluated")


def anything_graded(results: list[CriterionResult]) -> bool:
    return any(r.gating and r.evaluation_status == "evaluated" for r in results)
