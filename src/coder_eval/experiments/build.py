"""Build variant.json and experiment.json records from the task results of an experiment run."""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence
from statistics import fmean

from coder_eval.experiments.passk import arm_estimates, task_trials
from coder_eval.models.experiment import Quarantine
from coder_eval.models.experiment_results import (
    ExperimentResult,
    QuarantinedTask,
    TaskExperimentSummary,
    VariantAggregate,
    VariantResult,
)
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus

TIE_TOLERANCE = 1e-9
"""Variant means closer than this count as equal when picking a task's best variant."""


class _VariantTally:
    """One variant's rollup, gathered one row at a time (the same figures as over the whole list)."""

    def __init__(self) -> None:
        self.categories = dict.fromkeys(("succeeded", "failed", "error", "ungraded"), 0)
        self.scores = array("d")
        self.durations = array("d")
        self.tokens = 0
        self.per_task: dict[str, int] = defaultdict(int)
        self.token_budget = 0
        self.cost_budget = 0
        self.trials: list[tuple[str, int, FinalStatus]] = []

    def add(self, row: VariantResult) -> None:
        self.categories[row.final_status.category] += 1
        if row.weighted_score is not None:
            self.scores.append(row.weighted_score)
        self.durations.append(row.duration_seconds)
        self.tokens += row.total_tokens
        self.per_task[row.task_id] += 1
        self.token_budget += row.final_status is FinalStatus.TOKEN_BUDGET_EXCEEDED
        self.cost_budget += row.final_status is FinalStatus.COST_BUDGET_EXCEEDED
        self.trials.append((row.task_id, row.replicate_index, row.final_status))

    def aggregate(self, variant_id: str) -> VariantAggregate:
        return VariantAggregate(
            variant_id=variant_id,
            tasks_run=len(self.durations),
            tasks_succeeded=self.categories["succeeded"],
            tasks_failed=self.categories["failed"],
            tasks_error=self.categories["error"],
            tasks_not_graded=self.categories["ungraded"],
            tasks_measured=len(self.scores),
            average_score=fmean(self.scores) if self.scores else None,
            average_duration=fmean(self.durations) if self.durations else None,
            total_tokens=self.tokens,
            replicate_count=max(self.per_task.values(), default=0),
            tasks_token_budget_exceeded=self.token_budget,
            tasks_cost_budget_exceeded=self.cost_budget,
            pass_k=arm_estimates(task_trials(self.trials)),
        )


class ExperimentBuilder:
    """experiment.json gathered one task at a time: `add_task` gives that task's summary, `result`
    the rest (variant rollups, scores for the statistics) with no task summaries in it.

    `variants` are the experiment's variants in order, those only found in the rows included
    (`variant_order`); a task's rows under other variants are left out, as before.
    """

    def __init__(self, variants: Sequence[str]) -> None:
        self.variants = list(variants)
        self._tallies = {v: _VariantTally() for v in self.variants}
        self._scores: dict[str, dict[str, list[float]]] = {v: {} for v in self.variants}
        self.duration = 0.0

    def add_task(self, task_id: str, results: Iterable[EvaluationResult]) -> TaskExperimentSummary:
        rows = [_variant_result(r, 1) for r in results]
        for row in rows:
            self.duration += row.duration_seconds
            tally = self._tallies.get(row.variant_id)
            if tally is not None:
                tally.add(row)
        for variant, scores in per_replicate_scores(self.variants, rows).items():
            if task_id in scores:
                self._scores[variant][task_id] = scores[task_id]
        return _task_summary(task_id, self.variants, rows)

    def result(
        self, experiment_id: str, description: str, total_duration_seconds: float | None = None
    ) -> ExperimentResult:
        """The summary without its task summaries (`add_task` gave them, in the order they came)."""
        return ExperimentResult(
            experiment_id=experiment_id,
            description=description,
            variant_ids=self.variants,
            variant_aggregates={v: self._tallies[v].aggregate(v) for v in self.variants},
            total_duration_seconds=total_duration_seconds if total_duration_seconds is not None else self.duration,
            per_replicate_scores={v: dict(sorted(tasks.items())) for v, tasks in self._scores.items()},
        )


def build_variant_aggregate(variant_id: str, results: Iterable[EvaluationResult]) -> VariantAggregate:
    """Roll up one variant's rows (rows of other variants are ignored); unscored rows don't count in the mean."""
    tally = _VariantTally()
    for r in results:
        if r.variant_id == variant_id:
            tally.add(_variant_result(r, 1))
    return tally.aggregate(variant_id)


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
    by_task: dict[str, list[EvaluationResult]] = defaultdict(list)
    for r in rows:  # grouped once: filtering every row per task was quadratic in the row count
        by_task[r.task_id].append(r)
    builder = ExperimentBuilder(variant_order(variant_ids, {r.variant_id for r in rows}))
    summaries = [builder.add_task(task_id, by_task[task_id]) for task_id in sorted(by_task)]
    if total_duration_seconds is None:
        total_duration_seconds = sum(r.duration_seconds for r in rows)  # in the order given, as before
    result = builder.result(experiment_id, description, total_duration_seconds)
    return result.model_copy(update={"task_summaries": summaries})


def build_task_summary(
    task_id: str, variant_ids: Sequence[str], results: Iterable[EvaluationResult]
) -> TaskExperimentSummary:
    """One task across variants: every replicate row, the best variant by mean score, and the spread."""
    return _task_summary(task_id, variant_ids, [_variant_result(r, 1) for r in results])


def _task_summary(task_id: str, variant_ids: Sequence[str], results: Sequence[VariantResult]) -> TaskExperimentSummary:
    rows = [r for r in results if r.task_id == task_id and r.variant_id in variant_ids]
    counts = _replicate_counts(rows)
    order = list(variant_ids)
    variant_results = [
        r.model_copy(update={"replicate_count": counts[r.variant_id]})
        for r in sorted(rows, key=lambda r: (order.index(r.variant_id), r.replicate_index))
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
    variant_ids: Sequence[str], results: Iterable[EvaluationResult | VariantResult]
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


def variant_order(variant_ids: Sequence[str], found: Iterable[str]) -> list[str]:
    """The named variants in order, then any other variant `found` in the rows, sorted."""
    named = list(dict.fromkeys(variant_ids))
    extra = sorted(set(found) - set(named))
    return named + extra


def _variant_means(rows: Sequence[VariantResult], variant_ids: Sequence[str]) -> dict[str, float]:
    scores: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.weighted_score is not None:
            scores[r.variant_id].append(r.weighted_score)
    return {v: fmean(scores[v]) for v in variant_ids if scores[v]}


def _replicate_counts(rows: Sequence[VariantResult]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        counts[r.variant_id] += 1
    return dict(counts)


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


def quarantine_records(quarantine: Quarantine | None, task_ids: Iterable[str]) -> list[QuarantinedTask]:
    """The experiment's quarantine as experiment.json keeps it: each task, how it counts, whether it ran."""
    if quarantine is None:
        return []
    seen = set(task_ids)
    return [
        QuarantinedTask(
            task_id=task,
            mode=quarantine.mode,
            weight=quarantine.task_weight,
            reason=quarantine.reason,
            in_run=task in seen,
        )
        for task in quarantine.tasks
    ]
