"""Markdown reports for experiments: experiment.md (all variants) and <variant>/variant.md.

Confidence intervals and tests are computed here, at render time, from the stored scores.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from coder_eval.experiments.analysis import (
    VariantStatistics,
    arm_trials,
    clamp_unit,
    compare_two_arms,
    interval_text,
    p_value_text,
    quarantine_summary,
    row_trials,
    task_score,
    variant_statistics,
    variant_statistics_from_rows,
)
from coder_eval.experiments.ranking import RANKING_HEADERS, Ranking, rank_arms, ranking_rows
from coder_eval.experiments.stats import (
    BOOTSTRAP_METHOD,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONFIDENCE,
    WILCOXON_MIN_TASKS,
    MeanEstimate,
    PairedComparison,
    bootstrap_mean,
    signed,
)
from coder_eval.experiments.verdict import MIN_REPLICATES, MIN_TASKS
from coder_eval.models.experiment_results import ExperimentResult, TaskExperimentSummary, VariantAggregate
from coder_eval.models.results import EvaluationResult
from coder_eval.reports import adaptive_tables, passk_tables
from coder_eval.reports.format import format_duration, format_percent, format_score, format_tokens
from coder_eval.reports.markdown import cell, code, fenced

BAR_WIDTH = 24
CHART_TASK_LIMIT = 40


def method_note() -> str:
    """How the intervals were computed, stated once per report."""
    return (
        f"Intervals are {CONFIDENCE * 100:.0f}% confidence intervals: {BOOTSTRAP_METHOD} bootstrap "
        f"({BOOTSTRAP_RESAMPLES} resamples, seed {BOOTSTRAP_SEED}) for mean scores, Wilson for pass rates. "
        "They are computed when the report is rendered and are not stored in the JSON."
    )


# --- experiment.md ----------------------------------------------------------------------------


def render_experiment_markdown(result: ExperimentResult) -> str:
    """experiment.md: variant table, the two-arm comparison, per-task table and a text chart."""
    sections = [
        _experiment_header(result),
        _quarantine_section(result),
        _variant_table(result),
        passk_tables.markdown_section(
            {v: arm_trials(result, v) for v in result.variant_ids},
            weights=result.task_weights(),
        ),
        _comparison_section(compare_two_arms(result)),
        adaptive_tables.markdown_section(result.adaptive),
        _ranking_section(rank_arms(result)),
        _task_table(result),
        _chart_section(result),
    ]
    return "\n\n".join("\n".join(lines) for lines in sections if lines) + "\n"


def _experiment_header(result: ExperimentResult) -> list[str]:
    lines = [f"# Experiment {cell(result.experiment_id)}", ""]
    if result.description:
        lines += [cell(result.description, limit=2000), ""]
    lines += [
        f"- **Variants:** {', '.join(code(v) for v in result.variant_ids) or 'none'}",
        f"- **Tasks:** {len(result.task_summaries)} · **Total duration:** "
        f"{format_duration(result.total_duration_seconds)}",
        "",
        f"_{method_note()}_",
    ]
    return lines


QUARANTINE_HEADERS = ("Task", "How", "In this run")
QUARANTINE_NOTE = (
    "The counts (runs, succeeded, failed, errors) include every row; the mean scores, pass rates, "
    "pass@k, intervals, the comparison and its verdict apply the quarantine."
)


def quarantine_rows(result: ExperimentResult) -> list[list[str]]:
    """Each quarantined task: how it counts and whether the run had it (Markdown and HTML)."""
    return [
        [q.task_id, "excluded" if q.mode == "exclude" else f"weight {q.weight:g}", "yes" if q.in_run else "no"]
        for q in result.quarantine
    ]


def _quarantine_section(result: ExperimentResult) -> list[str]:
    summary = quarantine_summary(result)
    if summary is None:
        return []
    table = passk_tables.markdown_table(QUARANTINE_HEADERS, quarantine_rows(result))
    return ["## Quarantine", "", f"**{cell(summary, limit=2000)}**", "", *table, "", f"_{QUARANTINE_NOTE}_"]


def quarantine_mark(result: ExperimentResult, task_id: str) -> str:
    """`` (quarantined: excluded)`` after a quarantined task's id, else nothing."""
    for q in result.quarantine:
        if q.task_id == task_id:
            return " (quarantined: " + ("excluded" if q.mode == "exclude" else f"weight {q.weight:g}") + ")"
    return ""


def _variant_table(result: ExperimentResult) -> list[str]:
    lines = [
        "## Variants",
        "",
        "| Variant | Runs | Succeeded | Failed | Errors | Not graded | Mean score | Score CI | Pass rate | "
        "Pass-rate CI | Tokens | Avg duration |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | ---: | ---: |",
    ]
    for variant_id in result.variant_ids:
        aggregate = result.variant_aggregates.get(variant_id) or VariantAggregate(variant_id=variant_id)
        lines.append(_variant_row(aggregate, variant_statistics(result, variant_id)))
    return lines


def _variant_row(aggregate: VariantAggregate, statistics: VariantStatistics) -> str:
    values = [
        code(aggregate.variant_id),
        aggregate.tasks_run,
        aggregate.tasks_succeeded,
        aggregate.tasks_failed,
        aggregate.tasks_error,
        aggregate.tasks_not_graded,
        format_score(statistics.score.mean if statistics.score else None),
        interval_text(statistics.score),
        format_percent(statistics.pass_rate.rate if statistics.pass_rate else None),
        interval_text(statistics.pass_rate, percent=True),
        format_tokens(aggregate.total_tokens),
        format_duration(aggregate.average_duration),
    ]
    return "| " + " | ".join(str(v) for v in values) + " |"


def _comparison_section(comparison: PairedComparison | None) -> list[str]:
    if comparison is None:
        return []
    a, b = comparison.label_a, comparison.label_b
    return [
        f"## Comparison: {code(b)} vs {code(a)}",
        "",
        f"**{cell(comparison.verdict, limit=1000)}**",
        "",
        "| Measure | Value |",
        "| --- | --- |",
        *(f"| {cell(label)} | {cell(value)} |" for label, value in comparison_rows(comparison)),
        "",
        f"_Each task contributes one difference: mean score of {code(b)} minus mean score of {code(a)} over "
        "its measured replicates. Tasks not measured in both arms are left out._",
    ]


def _ranking_section(ranking: Ranking | None) -> list[str]:
    if ranking is None:
        return []
    return [
        "## Ranking",
        "",
        f"**{cell(ranking.verdict, limit=1000)}.**",
        "",
        "| " + " | ".join(RANKING_HEADERS) + " |",
        "| ---: | --- | ---: | --- | --- |",
        *("| " + " | ".join(cell(v) for v in row) + " |" for row in ranking_rows(ranking)),
        "",
        "_Each arm is paired with the leader task by task (its mean score minus the leader's, with a "
        "bootstrap interval); an arm whose interval contains zero cannot be told apart from the leader._",
    ]


def comparison_rows(c: PairedComparison) -> list[tuple[str, str]]:
    """The comparison's numbers as (label, value) pairs, shared by the Markdown and HTML reports."""
    level = f"{c.confidence * 100:.0f}%"
    mean = "n/a" if c.mean_difference is None else signed(c.mean_difference, 3)
    ci = "n/a" if c.interval is None else f"[{signed(c.interval.low, 3)}, {signed(c.interval.high, 3)}]"
    decision = c.decision
    unweighted = "n/a (no weighted form; quarantined tasks are weighted)" if c.weighted else None
    sequential = c.sequential
    rule = (
        f"decided only with {MIN_TASKS}+ tasks × {MIN_REPLICATES}+ replicates, paired t-test p < "
        f"{1 - c.confidence:.2g} and a {level} CI that excludes zero"
    )
    if sequential is not None:
        rule += f", and (adaptive replicates) a sequential e-value of at least {sequential.bar:g} in that direction"
    rows = [
        ("Verdict", decision.outcome + ("" if decision.outcome in ("better", "worse") else f": {decision.why}")),
        ("Rule", rule),
        ("Tasks compared", f"{c.n} ({c.tasks_excluded} not measured in both arms)"),
        ("Replicates (fewest per task and arm)", str(c.min_replicates)),
        ("Unmeasured replicates excluded", str(c.unmeasured_rows)),
        (f"Mean difference ({c.label_b} − {c.label_a})", mean),
        (f"{level} CI of the mean difference (bootstrap)", ci),
        (
            "Paired t-test p" + (" (weighted)" if c.weighted else ""),
            p_value_text(c.t_pvalue, "n/a (needs 2+ tasks with varying differences)"),
        ),
        (
            "Wilcoxon signed-rank p",
            p_value_text(c.wilcoxon_pvalue, unweighted or f"n/a (needs {WILCOXON_MIN_TASKS}+ tasks, not all tied)"),
        ),
        ("Welch t-test p (replicates, unpaired)", p_value_text(c.welch_pvalue, unweighted or "n/a")),
        (f"Tasks {c.label_b} better / {c.label_a} better / tied", f"{c.b_better} / {c.a_better} / {c.ties}"),
        ("More replicates needed (power estimate)", decision.more_replicates or "n/a (decided)"),
    ]
    if c.tasks_quarantined or c.weighted:
        left_out = f"{c.tasks_quarantined} left out" if c.tasks_quarantined else "none left out"
        rows.insert(3, ("Quarantined tasks", left_out + ("; weighted tasks count less" if c.weighted else "")))
    if sequential is not None:
        rows.append(
            (
                f"Sequential e-values ({c.label_b} better / {c.label_a} better)",
                f"{sequential.e_better:.3g} / {sequential.e_worse:.3g} (bar {sequential.bar:g})",
            )
        )
    return rows


def _task_table(result: ExperimentResult) -> list[str]:
    if not result.task_summaries:
        return ["## Tasks", "", "_No task results._"]
    variants = result.variant_ids
    header = "| Task | " + " | ".join(code(v) for v in variants) + " | Best | Spread | Replicates |"
    align = "| --- | " + " | ".join("---:" for _ in variants) + " | --- | ---: | ---: |"
    rows = [_task_row(summary, variants, quarantine_mark(result, summary.task_id)) for summary in result.task_summaries]
    return ["## Tasks", "", "_Mean score over replicates with its CI._", "", header, align, *rows]


def _task_row(summary: TaskExperimentSummary, variants: Sequence[str], mark: str = "") -> str:
    scores = [score_with_interval(task_score(summary, v)) for v in variants]
    values = [
        cell(summary.task_id + mark),
        *scores,
        best_label(summary),
        format_score(summary.score_spread),
        str(summary.replicate_count),
    ]
    return "| " + " | ".join(values) + " |"


def score_with_interval(estimate: MeanEstimate | None) -> str:
    """`0.733 [0.600, 0.867]`, just `1.000` when the interval collapsed, `n/a` when unmeasured."""
    if estimate is None:
        return "n/a"
    if estimate.degenerate:
        return format_score(estimate.mean)
    return f"{format_score(estimate.mean)} {interval_text(estimate)}"


def best_label(summary: TaskExperimentSummary) -> str:
    """The best variant's id, `tie`, or `n/a` when no variant was measured."""
    if summary.is_tie:
        return "tie"
    return code(summary.best_variant) if summary.best_variant else "n/a"


def _chart_section(result: ExperimentResult) -> list[str]:
    if not result.task_summaries or not result.variant_ids:
        return []
    width = max(len(v) for v in result.variant_ids)
    chart: list[str] = []
    for summary in result.task_summaries[:CHART_TASK_LIMIT]:
        chart.append(summary.task_id)
        chart += [f"  {v.ljust(width)}  {text_bar(task_score(summary, v))}" for v in result.variant_ids]
    lines = ["## Score chart", "", *fenced("\n".join(chart), info="text")]
    hidden = len(result.task_summaries) - CHART_TASK_LIMIT
    if hidden > 0:
        lines.append(f"_{hidden} more tasks are in the table above._")
    return lines


def text_bar(estimate: MeanEstimate | None) -> str:
    """A fixed-width bar for a 0–1 score followed by the score and its CI."""
    if estimate is None:
        return "·" * BAR_WIDTH + "  n/a"
    filled = round(clamp_unit(estimate.mean) * BAR_WIDTH)
    return "█" * filled + "░" * (BAR_WIDTH - filled) + "  " + score_with_interval(estimate)


# --- variant.md -------------------------------------------------------------------------------


def render_variant_markdown(aggregate: VariantAggregate, results: Sequence[EvaluationResult]) -> str:
    """variant.md: one variant's rollup with intervals, and its per-task table and chart."""
    rows = [r for r in results if r.variant_id == aggregate.variant_id]
    statistics = variant_statistics_from_rows(aggregate, rows)
    sections = [
        _variant_header(aggregate, statistics),
        passk_tables.markdown_section({aggregate.variant_id: row_trials(rows)}, single=True),
        _variant_task_table(rows),
        _variant_chart(rows),
    ]
    return "\n\n".join("\n".join(lines) for lines in sections if lines) + "\n"


def _variant_header(aggregate: VariantAggregate, statistics: VariantStatistics) -> list[str]:
    return [
        f"# Variant {cell(aggregate.variant_id)}",
        "",
        f"- **Runs:** {aggregate.tasks_run} · {aggregate.tasks_succeeded} succeeded · {aggregate.tasks_failed} "
        f"failed · {aggregate.tasks_error} errors · {aggregate.tasks_not_graded} not graded",
        f"- **Mean score:** {format_score(aggregate.average_score)} · CI {interval_text(statistics.score)} "
        f"· {statistics.unmeasured_rows} unmeasured",
        f"- **Pass rate:** {format_percent(aggregate.pass_rate)} · "
        f"CI {interval_text(statistics.pass_rate, percent=True)}",
        f"- **Tokens:** {format_tokens(aggregate.total_tokens)} · **Avg duration:** "
        f"{format_duration(aggregate.average_duration)} · **Replicates:** {aggregate.replicate_count}",
        f"- **Budget stops:** {aggregate.tasks_token_budget_exceeded} token · "
        f"{aggregate.tasks_cost_budget_exceeded} cost",
        "",
        f"_{method_note()}_",
    ]


def rows_by_task(rows: Sequence[EvaluationResult]) -> dict[str, list[EvaluationResult]]:
    """Rows grouped by task id (sorted), each group in replicate order."""
    groups: dict[str, list[EvaluationResult]] = defaultdict(list)
    for r in sorted(rows, key=lambda r: (r.task_id, r.replicate_index)):
        groups[r.task_id].append(r)
    return dict(groups)


def _variant_task_table(rows: Sequence[EvaluationResult]) -> list[str]:
    if not rows:
        return ["## Tasks", "", "_No task results._"]
    lines = [
        "## Tasks",
        "",
        "| Task | Replicates | Statuses | Mean score | Score CI | Avg duration | Tokens |",
        "| --- | ---: | --- | ---: | --- | ---: | ---: |",
    ]
    for task_id, group in rows_by_task(rows).items():
        estimate = bootstrap_mean([r.weighted_score for r in group if r.weighted_score is not None])
        values = [
            cell(task_id),
            str(len(group)),
            " ".join(r.final_status.icon for r in group),
            format_score(estimate.mean if estimate else None),
            interval_text(estimate),
            format_duration(sum(r.duration_seconds for r in group) / len(group)),
            format_tokens(sum(r.total_token_usage.total_tokens for r in group)),
        ]
        lines.append("| " + " | ".join(values) + " |")
    return lines


def _variant_chart(rows: Sequence[EvaluationResult]) -> list[str]:
    groups = rows_by_task(rows)
    if not groups:
        return []
    width = max(len(t) for t in groups)
    chart: list[str] = []
    for task_id, group in list(groups.items())[:CHART_TASK_LIMIT]:
        estimate = bootstrap_mean([r.weighted_score for r in group if r.weighted_score is not None])
        chart.append(f"{task_id.ljust(width)}  {text_bar(estimate)}")
    return ["## Score chart", "", *fenced("\n".join(chart), info="text")]
