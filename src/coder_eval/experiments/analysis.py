"""The statistics an experiment report shows, derived from an `ExperimentResult` at render time."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from coder_eval.experiments.passk import TaskTrials, k_values, task_trials
from coder_eval.experiments.stats import (
    CONFIDENCE,
    MeanEstimate,
    PairedComparison,
    RateEstimate,
    bootstrap_mean,
    paired_comparison,
    weighted_rate,
    wilson_interval,
)
from coder_eval.experiments.stopping import AdaptiveSettings, TaskReplicates, sequential_evidence
from coder_eval.models.experiment_results import ExperimentResult, TaskExperimentSummary, VariantAggregate
from coder_eval.models.results import EvaluationResult


@dataclass(frozen=True)
class VariantStatistics:
    """A variant's mean score (bootstrap CI over every measured replicate) and pass rate (Wilson CI)."""

    variant_id: str
    score: MeanEstimate | None
    pass_rate: RateEstimate | None
    unmeasured_rows: int


def pass_rate_interval(aggregate: VariantAggregate) -> RateEstimate | None:
    """Wilson interval for the aggregate's pass rate; None exactly when `pass_rate` is None."""
    if aggregate.pass_rate is None:
        return None
    return wilson_interval(aggregate.tasks_succeeded, aggregate.tasks_graded)


def variant_statistics(result: ExperimentResult, variant_id: str) -> VariantStatistics:
    """Interval estimates for one variant of an experiment (quarantined tasks left out or weighted)."""
    weights = result.task_weights()
    if weights:
        return _weighted_variant_statistics(result, variant_id, weights)
    scores = [s for task in result.per_replicate_scores.get(variant_id, {}).values() for s in task]
    aggregate = result.variant_aggregates.get(variant_id)
    return VariantStatistics(
        variant_id=variant_id,
        score=bootstrap_mean(scores),
        pass_rate=pass_rate_interval(aggregate) if aggregate else None,
        unmeasured_rows=sum(t.unmeasured_count(variant_id) for t in result.task_summaries),
    )


def _weighted_variant_statistics(
    result: ExperimentResult, variant_id: str, weights: dict[str, float]
) -> VariantStatistics:
    """Every replicate of a quarantined task counts at its task's weight (0: not at all)."""
    scores, score_weights, outcomes, outcome_weights, unmeasured = [], [], [], [], 0
    for summary in result.task_summaries:
        weight = weights.get(summary.task_id, 1.0)
        if weight <= 0:
            continue
        for r in summary.variant_results:
            if r.variant_id != variant_id:
                continue
            if r.weighted_score is None:
                unmeasured += 1
            else:
                scores.append(r.weighted_score)
                score_weights.append(weight)
            if r.final_status.category != "ungraded":
                outcomes.append(r.final_status.category == "succeeded")
                outcome_weights.append(weight)
    return VariantStatistics(
        variant_id=variant_id,
        score=bootstrap_mean(scores, weights=score_weights),
        pass_rate=weighted_rate(outcomes, outcome_weights) if scores else None,
        unmeasured_rows=unmeasured,
    )


def variant_statistics_from_rows(aggregate: VariantAggregate, results: Iterable[EvaluationResult]) -> VariantStatistics:
    """Interval estimates for one variant from its own task rows (for variant.md / variant.html)."""
    rows = [r for r in results if r.variant_id == aggregate.variant_id]
    scores = [r.weighted_score for r in rows if r.weighted_score is not None]
    return VariantStatistics(
        variant_id=aggregate.variant_id,
        score=bootstrap_mean(scores),
        pass_rate=pass_rate_interval(aggregate),
        unmeasured_rows=len(rows) - len(scores),
    )


def task_score(summary: TaskExperimentSummary, variant_id: str) -> MeanEstimate | None:
    """One variant's mean score on one task with a bootstrap CI over its replicates."""
    return bootstrap_mean(summary.scores_for(variant_id))


def compare_two_arms(result: ExperimentResult) -> PairedComparison | None:
    """The paired comparison of the second variant (B) against the first (A); None unless exactly two."""
    if len(result.variant_ids) != 2:
        return None
    return compare_arms(result, result.variant_ids[0], result.variant_ids[1])


def compare_arms(result: ExperimentResult, variant_a: str, variant_b: str) -> PairedComparison:
    """B − A per task over tasks both measured; unmeasured replicates of either arm are counted.

    Quarantined tasks are left out (their unmeasured replicates too) or weighted. For a run with
    adaptive replicates of these two arms the comparison is made at the run's confidence and carries
    the sequential test (over the tasks not left out), which its verdict then also needs."""
    weights = result.task_weights()
    unmeasured = sum(
        t.unmeasured_count(v)
        for t in result.task_summaries
        if weights.get(t.task_id, 1.0) > 0
        for v in (variant_a, variant_b)
    )
    adaptive = result.adaptive
    confidence, sequential = CONFIDENCE, None
    if adaptive is not None and adaptive.arms == [variant_a, variant_b]:
        settings = AdaptiveSettings(
            max_repeats=adaptive.max_repeats,
            min_repeats=adaptive.min_repeats,
            confidence=adaptive.confidence,
            effect_size=adaptive.effect_size,
        )
        kept = [r for r in adaptive_replicates(result, variant_a, variant_b) if weights.get(r.task_id, 1.0) > 0]
        _, sequential = sequential_evidence(kept, settings)
        confidence = adaptive.confidence
    return paired_comparison(
        result.per_replicate_scores.get(variant_a, {}),
        result.per_replicate_scores.get(variant_b, {}),
        label_a=variant_a,
        label_b=variant_b,
        unmeasured_rows=unmeasured,
        weights=weights,
        confidence=confidence,
        sequential=sequential,
    )


def adaptive_replicates(result: ExperimentResult, variant_a: str, variant_b: str) -> list[TaskReplicates]:
    """Every task's replicates of two arms by replicate index, as the adaptive rounds saw them."""
    out = []
    for summary in result.task_summaries:
        a = {r.replicate_index: r.weighted_score for r in summary.variant_results if r.variant_id == variant_a}
        b = {r.replicate_index: r.weighted_score for r in summary.variant_results if r.variant_id == variant_b}
        out.append(TaskReplicates(summary.task_id, a, b))
    return out


@dataclass(frozen=True)
class PassKFigure:
    """An arm's pass@k and pass^k at one k, each a mean over tasks with a bootstrap interval over tasks."""

    k: int
    pass_at_k: MeanEstimate
    pass_hat_k: MeanEstimate
    tasks_excluded: int
    tasks_quarantined: int = 0
    """Tasks left out because the experiment quarantined them."""

    @property
    def tasks(self) -> int:
        return self.pass_at_k.n


@dataclass(frozen=True)
class TaskPassK:
    """One task's pass@k and pass^k at one k, with intervals from the Wilson interval of its success rate."""

    k: int
    pass_at_k: RateEstimate
    pass_hat_k: RateEstimate


def arm_trials(result: ExperimentResult, variant_id: str) -> list[TaskTrials]:
    """Every task's replicate outcomes under one arm of an experiment."""
    return task_trials(
        (r.task_id, r.replicate_index, r.final_status)
        for summary in result.task_summaries
        for r in summary.variant_results
        if r.variant_id == variant_id
    )


def row_trials(results: Iterable[EvaluationResult], variant_id: str | None = None) -> list[TaskTrials]:
    """Every task's replicate outcomes among task rows (of one variant, when given)."""
    return task_trials(
        (r.task_id, r.replicate_index, r.final_status)
        for r in results
        if variant_id is None or r.variant_id == variant_id
    )


def experiment_k_values(result: ExperimentResult) -> list[int]:
    """The k values an experiment reports: from the most graded replicates of any task and arm."""
    most = max((t.n for v in result.variant_ids for t in arm_trials(result, v)), default=0)
    return k_values(most)


def pass_k_figures(
    tasks: Sequence[TaskTrials], ks: Sequence[int] | None = None, weights: Mapping[str, float] | None = None
) -> list[PassKFigure]:
    """Per k, the mean over tasks of pass@k and pass^k with a percentile bootstrap interval over tasks.

    Resampling tasks (not replicates) asks how the figure would move on another draw of tasks like
    these, which is what a reader generalises to; each task's own estimate is unbiased, and its
    replicate noise shows up in the spread between tasks. Tasks with fewer than k graded
    replicates are left out and counted. `weights` (task → weight) come from a quarantine: weight
    0 leaves a task out, a smaller weight counts it less in the mean and its interval.
    """
    weights = weights or {}
    kept = [t for t in tasks if weights.get(t.task_id, 1.0) > 0]
    if ks is None:
        ks = k_values(max((t.n for t in kept), default=0))
    out = []
    for k in ks:
        values = [(v, weights.get(t.task_id, 1.0)) for t, v in ((t, t.at(k)) for t in kept) if v is not None]
        w = [weight for _, weight in values] if weights else None
        at = bootstrap_mean([v[0] for v, _ in values], weights=w)
        hat = bootstrap_mean([v[1] for v, _ in values], weights=w)
        if at is None or hat is None:
            continue
        out.append(
            PassKFigure(
                k=k,
                pass_at_k=at,
                pass_hat_k=hat,
                tasks_excluded=len(kept) - len(values),
                tasks_quarantined=len(tasks) - len(kept),
            )
        )
    return out


def task_pass_k(trials: TaskTrials, k: int) -> TaskPassK | None:
    """One task's estimates at k with intervals; None when fewer than k replicates were graded.

    pass@k and pass^k of a task are increasing functions of its success probability p
    (1 − (1 − p)^k and p^k), so the Wilson interval of p maps onto an interval for each.
    """
    values = trials.at(k)
    rate = wilson_interval(trials.c, trials.n)
    if values is None or rate is None:
        return None
    at = RateEstimate(values[0], 1 - (1 - rate.low) ** k, 1 - (1 - rate.high) ** k, trials.c, trials.n)
    hat = RateEstimate(values[1], rate.low**k, rate.high**k, trials.c, trials.n)
    return TaskPassK(k=k, pass_at_k=at, pass_hat_k=hat)


def interval_text(estimate: MeanEstimate | RateEstimate | None, *, percent: bool = False) -> str:
    """`[0.412, 0.733]` or `[45.3%, 93.7%]`; `n/a` without an estimate."""
    if estimate is None:
        return "n/a"
    if percent:
        return f"[{estimate.low * 100:.1f}%, {estimate.high * 100:.1f}%]"
    return f"[{estimate.low:.3f}, {estimate.high:.3f}]"


def p_value_text(value: float | None, reason: str = "n/a") -> str:
    """`0.012`, `< 0.001`, or the reason the test was not run."""
    if value is None:
        return reason
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def clamp_unit(value: float) -> float:
    """A score clamped to the 0–1 range a chart draws."""
    return min(1.0, max(0.0, value))


def quarantine_summary(result: ExperimentResult) -> str | None:
    """One sentence on the experiment's quarantine for a report; None without one."""
    if not result.quarantine:
        return None
    present = [q for q in result.quarantine if q.in_run]
    excluded = [q.task_id for q in present if q.mode == "exclude"]
    weighted = [q for q in present if q.mode == "weight"]
    parts = []
    if excluded:
        parts.append(f"{', '.join(excluded)} left out of every statistic and the verdict")
    if weighted:
        parts.append(
            ", ".join(q.task_id for q in weighted)
            + f" counted at weight {weighted[0].weight:g} (every other task weighs 1) in the means, intervals, "
            "pass@k and the paired test"
        )
    missing = [q.task_id for q in result.quarantine if not q.in_run]
    text = ("Quarantined: " + "; ".join(parts) + ".") if parts else "No quarantined task was in this run."
    if missing:
        text += f" Not in this run: {', '.join(missing)}."
    reason = next((q.reason for q in result.quarantine if q.reason), "")
    if reason:
        text += f" Why: {reason}"
    return text
