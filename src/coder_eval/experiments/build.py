"""Build variant.json and experiment.json records from the task results of an experiment run."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from statistics import fmean

from coder_eval.models.experiment_results import (
    ExperimentResult,
    TaskExperimentSummary,
    VariantAggregate,
    VariantResult,
)
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus

TIE_TOLERANCE = 1e-9
"""Variant means closer than this count as equal when picking a task's best variant."""


def build_variant_aggregate(variant_id: str, results: Iterable[EvaluationResult]) -> VariantAggregate:
    """Roll up one variant's rows (rows of other variants are ignored); unscored rows don't count in the mean."""
    rows = [r for r in results if r.variant_id == variant_id]
    categories = [r.final_status.category for r in rows]
    scores = [r.weighted_score for r in rows if r.weighted_score is not None]
    statuses = [r.final_status for r in rows]
    return VariantAggregate(
        variant_id=variant_id,
        tasks_run=len(rows),
        tasks_succeeded=categories.count("succeeded"),
        tasks_failed=categories.count("failed"),
        tasks_error=categories.count("error"),
        tasks_not_graded=categories.count("ungraded"),
        tasks_measured=len(scores),
        average_score=fmean(scores) if scores else None,
        average_duration=fmean(r.duration_seconds for r in rows) if rows else None,
        total_tokens=sum(r.total_token_usage.total_tokens for r in rows),
        replicate_count=_max_replicates(rows),
        tasks_token_budget_exceeded=statuses.count(FinalStatus.TOKEN_BUDGET_EXCEEDED),
        tasks_cost_budget_exceeded=statuses.count(FinalStatus.COST_BUDGET_EXCEEDED),
    )


def build_experiment_result(
    experiment_id: str,
    description: str,
    variant_ids: Sequence[str],
    results: Iterable[EvaluationResult],
    *,
    total_duration_seconds: float | None = None,
) -> ExperimentResult:
    """The cross-variant summary. Variants found in `results` but not named are appended in sorted order.

    `total_duration_seconds` defaults to the sum of the rows' durations (pass the wall clock when known).
    """
    rows = list(results)
    variants = _variant_order(variant_ids, rows)
    by_task: dict[str, list[EvaluationResult]] = defaultdict(list)
    for r in rows:  # grouped once: filtering every row per task was quadratic in the row count
        by_task[r.task_id].append(r)
    return ExperimentResult(
        experiment_id=experiment_id,
        description=description,
        variant_ids=variants,
        task_summaries=[build_task_summary(task_id, variants, by_task[task_id]) for task_id in sorted(by_task)],
        variant_aggregates={v: build_variant_aggregate(v, rows) for v in variants},
        total_duration_seconds=(
            total_duration_seconds if total_duration_seconds is not None else sum(r.duration_seconds for r in rows)
        ),
        per_replicate_scores=per_replicate_scores(variants, rows),
    )


def build_task_summary(
    task_id: str, variant_ids: Sequence[str], results: Iterable[EvaluationResult]
) -> TaskExperimentSummary:
    """One task across variants: every replicate row, the best variant by mean score, and the spread."""
    rows = [r for r in results if r.task_id == task_id and r.variant_id in variant_ids]
    counts = _replicate_counts(rows)
    variant_results = [
        _variant_result(r, counts[r.variant_id])
        for r in sorted(rows, key=lambda r: (list(variant_ids).index(r.variant_id), r.replicate_index))
    ]
    means = _variant_means(rows, variant_ids)
    best, tie = pick_best(means)
    return TaskExperimentSummary(
        task_id=task_id,
        variant_results=variant_results,
        best_variant=best,
        is_tie=tie,
        score_spread=(max(means.values()) - min(means.values())) if means else None,
        replicate_count=max(counts.values(), default=0),
    )


def pick_best(means: dict[str, float]) -> tuple[str | None, bool]:
    """(best variant, is_tie). Means within `TIE_TOLERANCE` of the top tie, and a tie names no winner."""
    if not means:
        return None, False
    top = max(means.values())
    leaders = [v for v, m in means.items() if top - m <= TIE_TOLERANCE]
    if len(leaders) > 1:
        return None, True
    return leaders[0], False


def per_replicate_scores(
    variant_ids: Sequence[str], results: Iterable[EvaluationResult]
) -> dict[str, dict[str, list[float]]]:
    """variant → task → measured scores in replicate order. Unscored replicates are left out."""
    table: dict[str, dict[str, list[tuple[int, float]]]] = {v: {} for v in variant_ids}
    for r in results:
        if r.variant_id in table and r.weighted_score is not None:
            table[r.variant_id].setdefault(r.task_id, []).append((r.replicate_index, r.weighted_score))
    return {
        v: {task: [score for _, score in sorted(pairs)] for task, pairs in sorted(tasks.items())}
        for v, tasks in table.items()
    }


def _variant_order(variant_ids: Sequence[str], rows: Sequence[EvaluationResult]) -> list[str]:
    named = list(dict.fromkeys(variant_ids))
    extra = sorted({r.variant_id for r in rows} - set(named))
    return named + extra


def _variant_means(rows: Sequence[EvaluationResult], variant_ids: Sequence[str]) -> dict[str, float]:
    scores: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.weighted_score is not None:
            scores[r.variant_id].append(r.weighted_score)
    return {v: fmean(scores[v]) for v in variant_ids if scores[v]}


def _replicate_counts(rows: Sequence[EvaluationResult]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        counts[r.variant_id] += 1
    return dict(counts)


def _max_replicates(rows: Sequence[EvaluationResult]) -> int:
    per_task: dict[str, int] = defaultdict(int)
    for r in rows:
        per_task[r.task_id] += 1
    return max(per_task.values(), default=0)


def _variant_result(row: EvaluationResult, replicate_count: int) -> VariantResult:
    return VariantResult(
        variant_id=row.variant_id,
        task_id=row.task_id,
        weighted_score=row.weighted_score,
        final_status=row.final_status,
        duration_seconds=row.duration_seconds,
        total_tokens=row.total_token_usage.total_tokens,
        iteration_count=row.iteration_count,
        total_assistant_turns=row.total_assistant_turns,
        reference_similarity=row.reference_similarity,
        replicate_index=row.replicate_index,
        replicate_count=replicate_count,
    )
