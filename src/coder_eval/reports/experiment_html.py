"""Self-contained HTML reports for experiments: experiment.html and <variant>/variant.html.

Styles are inline, the chart is inline SVG, nothing is fetched from the network, and every string
that came from a task or an experiment file is HTML-escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from coder_eval.experiments.analysis import (
    VariantStatistics,
    arm_trials,
    compare_two_arms,
    interval_text,
    quarantine_summary,
    row_trials,
    task_score,
    variant_statistics,
    variant_statistics_from_rows,
)
from coder_eval.experiments.passk import TaskTrials, k_values
from coder_eval.experiments.ranking import RANKING_HEADERS, Ranking, rank_arms, ranking_rows
from coder_eval.experiments.stats import MeanEstimate, PairedComparison, bootstrap_mean
from coder_eval.models.adaptive import AdaptiveRecord
from coder_eval.models.experiment_results import ExperimentResult, VariantAggregate
from coder_eval.models.results import EvaluationResult
from coder_eval.reports import adaptive_tables, passk_tables
from coder_eval.reports.experiment_chart import ChartGroup, score_chart_svg
from coder_eval.reports.experiment_markdown import (
    QUARANTINE_HEADERS,
    QUARANTINE_NOTE,
    best_label,
    comparison_rows,
    method_note,
    quarantine_mark,
    quarantine_rows,
    rows_by_task,
    score_with_interval,
)
from coder_eval.reports.format import Links, format_duration, format_percent, format_score, format_tokens, nav_html
from coder_eval.reports.html_page import escape

VARIANT_HEADERS = (
    "Variant",
    "Runs",
    "Succeeded",
    "Failed",
    "Errors",
    "Not graded",
    "Mean score",
    "Score CI",
    "Pass rate",
    "Pass-rate CI",
    "Tokens",
    "Avg duration",
)

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem;color:#1f2328}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0;width:100%}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{font-size:1.05rem;font-weight:600;padding:.6rem .8rem;border-left:4px solid #0969da;background:#ddf4ff}
.chips span{margin-right:1rem}.note{color:#57606a}
svg text{font:12px system-ui,-apple-system,"Segoe UI",sans-serif;fill:#1f2328}
svg .axis{stroke:#d0d7de}svg .whisker{stroke:#1f2328;stroke-width:1.5}
"""


# --- shared building blocks -------------------------------------------------------------------


def _page(title: str, body: Iterable[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: frozenset[int] = frozenset()) -> str:
    """A table from plain strings; every header and cell is escaped here."""
    head = "<thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr></thead>"
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=num' if i in numeric else ''}>{escape(value)}</td>" for i, value in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f"<table>{head}<tbody>{body}</tbody></table>"


def _chips(items: Iterable[tuple[str, str]]) -> str:
    return '<p class="chips">' + "".join(f"<span><b>{escape(k)}:</b> {escape(v)}</span>" for k, v in items) + "</p>"


# --- the chart --------------------------------------------------------------------------------


def render_experiment_html(result: ExperimentResult, *, links: Links = ()) -> str:
    """The experiment on one page: variants, the two-arm verdict, per-task table and the score chart.

    The page links each arm's variant.html and `links` (the run's other pages)."""
    arms = tuple((f"arm {v}", f"{v}/variant.html") for v in result.variant_ids)
    body = [
        nav_html((*links, *arms)),
        f"<h1>Experiment {escape(result.experiment_id)}</h1>",
        f"<p>{escape(result.description)}</p>" if result.description else "",
        _chips(
            [
                ("Variants", ", ".join(result.variant_ids) or "none"),
                ("Tasks", str(len(result.task_summaries))),
                ("Total duration", format_duration(result.total_duration_seconds)),
            ]
        ),
        f'<p class="note">{escape(method_note())}</p>',
        _quarantine(result),
        "<h2>Variants</h2>",
        _variant_table(result),
        _pass_k({v: arm_trials(result, v) for v in result.variant_ids}, weights=result.task_weights()),
        _comparison(compare_two_arms(result)),
        _adaptive(result.adaptive),
        _ranking(rank_arms(result)),
        "<h2>Tasks</h2>",
        _task_table(result),
        "<h2>Score per task</h2>",
        _experiment_chart(result),
    ]
    return _page(f"Coder Eval experiment {result.experiment_id}", body)


def _quarantine(result: ExperimentResult) -> str:
    summary = quarantine_summary(result)
    if summary is None:
        return ""
    table = _table(QUARANTINE_HEADERS, quarantine_rows(result))
    note = f'<p class="note">{escape(QUARANTINE_NOTE)}</p>'
    return f'<h2>Quarantine</h2><p class="verdict" id="quarantine">{escape(summary)}</p>{table}{note}'


def _variant_table(result: ExperimentResult) -> str:
    headers = VARIANT_HEADERS
    rows = []
    for variant_id in result.variant_ids:
        aggregate = result.variant_aggregates.get(variant_id) or VariantAggregate(variant_id=variant_id)
        rows.append(_variant_cells(aggregate, variant_statistics(result, variant_id)))
    return _table(headers, rows, numeric=frozenset({1, 2, 3, 4, 5, 6, 8, 10, 11}))


def _variant_cells(aggregate: VariantAggregate, statistics: VariantStatistics) -> list[str]:
    return [
        aggregate.variant_id,
        str(aggregate.tasks_run),
        str(aggregate.tasks_succeeded),
        str(aggregate.tasks_failed),
        str(aggregate.tasks_error),
        str(aggregate.tasks_not_graded),
        format_score(statistics.score.mean if statistics.score else None),
        interval_text(statistics.score),
        format_percent(statistics.pass_rate.rate if statistics.pass_rate else None),
        interval_text(statistics.pass_rate, percent=True),
        format_tokens(aggregate.total_tokens),
        format_duration(aggregate.average_duration),
    ]


def _pass_k(
    trials_by_arm: Mapping[str, Sequence[TaskTrials]],
    *,
    single: bool = False,
    weights: Mapping[str, float] | None = None,
) -> str:
    """The pass@k / pass^k tables (per arm and k, then per task with its replicate strip)."""
    k = passk_tables.largest_k(trials_by_arm)
    if k is None:
        return ""
    figures = passk_tables.arms_rows(trials_by_arm, k_values(k), weights)
    arms = _table(passk_tables.ARM_HEADERS, figures, frozenset({1, 2, 4}))
    headers = passk_tables.task_headers(list(trials_by_arm), k, single=single)
    tasks = _table(headers, passk_tables.task_rows(trials_by_arm, k))
    hidden = passk_tables.hidden_tasks(trials_by_arm)
    more = f'<p class="note">{hidden} more tasks are not shown in this table.</p>' if hidden else ""
    return (
        f"<h2>pass@k and pass^k</h2>{arms}<p>Per task, at k = {k}:</p>{tasks}{more}"
        f'<p class="note">{escape(passk_tables.pass_k_note())}</p>'
    )


def _adaptive(record: AdaptiveRecord | None) -> str:
    if record is None:
        return ""
    summary = _table(("Measure", "Value"), adaptive_tables.summary_rows(record))
    tasks = _table(adaptive_tables.TASK_HEADERS, adaptive_tables.task_rows(record), frozenset({1, 2, 3, 6}))
    note = f'<p class="note">{escape(adaptive_tables.method_note(record))}</p>'
    return f"<h2>Adaptive replicates</h2>{summary}{tasks}{note}"


def _comparison(comparison: PairedComparison | None) -> str:
    if comparison is None:
        return ""
    title = f"Comparison: {comparison.label_b} vs {comparison.label_a}"
    return f'<h2>{escape(title)}</h2><p class="verdict">{escape(comparison.verdict)}</p>' + _table(
        ("Measure", "Value"), comparison_rows(comparison)
    )


def _ranking(ranking: Ranking | None) -> str:
    if ranking is None:
        return ""
    verdict = f'<h2>Ranking</h2><p class="verdict">{escape(ranking.verdict)}.</p>'
    return verdict + _table(RANKING_HEADERS, ranking_rows(ranking), numeric=frozenset({0, 2}))


def _task_table(result: ExperimentResult) -> str:
    if not result.task_summaries:
        return '<p class="note">No task results.</p>'
    headers = ["Task", *result.variant_ids, "Best", "Spread", "Replicates"]
    rows = [
        [
            s.task_id + quarantine_mark(result, s.task_id),
            *(score_with_interval(task_score(s, v)) for v in result.variant_ids),
            best_label(s).strip("`"),
            format_score(s.score_spread),
            str(s.replicate_count),
        ]
        for s in result.task_summaries
    ]
    count = len(result.variant_ids)
    return _table(headers, rows, numeric=frozenset({*range(1, count + 1), count + 2, count + 3}))


def _experiment_chart(result: ExperimentResult) -> str:
    if not result.task_summaries or not result.variant_ids:
        return '<p class="note">Nothing to chart.</p>'
    groups: list[ChartGroup] = [
        (s.task_id, [(v, task_score(s, v)) for v in result.variant_ids]) for s in result.task_summaries
    ]
    return score_chart_svg(groups, result.variant_ids)


# --- variant.html -----------------------------------------------------------------------------


def render_variant_html(aggregate: VariantAggregate, results: Sequence[EvaluationResult], *, links: Links = ()) -> str:
    """One variant's rollup with intervals, its per-task table and score chart."""
    rows = [r for r in results if r.variant_id == aggregate.variant_id]
    statistics = variant_statistics_from_rows(aggregate, rows)
    groups = rows_by_task(rows)
    estimates = {
        t: bootstrap_mean([r.weighted_score for r in g if r.weighted_score is not None]) for t, g in groups.items()
    }
    body = [
        nav_html(links),
        f"<h1>Variant {escape(aggregate.variant_id)}</h1>",
        _chips(_variant_chips(aggregate, statistics)),
        f'<p class="note">{escape(method_note())}</p>',
        _pass_k({aggregate.variant_id: row_trials(rows)}, single=True),
        "<h2>Tasks</h2>",
        _variant_task_table(groups, estimates),
        "<h2>Score per task</h2>",
        score_chart_svg([(t, [(aggregate.variant_id, e)]) for t, e in estimates.items()], [aggregate.variant_id])
        if estimates
        else '<p class="note">Nothing to chart.</p>',
    ]
    return _page(f"Coder Eval variant {aggregate.variant_id}", body)


def _variant_chips(aggregate: VariantAggregate, statistics: VariantStatistics) -> list[tuple[str, str]]:
    return [
        (
            "Runs",
            f"{aggregate.tasks_run} ({aggregate.tasks_succeeded} succeeded, {aggregate.tasks_failed} failed, "
            f"{aggregate.tasks_error} errors, {aggregate.tasks_not_graded} not graded)",
        ),
        ("Mean score", f"{format_score(aggregate.average_score)} {interval_text(statistics.score)}"),
        ("Unmeasured", str(statistics.unmeasured_rows)),
        ("Pass rate", f"{format_percent(aggregate.pass_rate)} {interval_text(statistics.pass_rate, percent=True)}"),
        ("Tokens", format_tokens(aggregate.total_tokens)),
        ("Avg duration", format_duration(aggregate.average_duration)),
        ("Replicates", str(aggregate.replicate_count)),
    ]


def _variant_task_table(groups: dict[str, list[EvaluationResult]], estimates: dict[str, MeanEstimate | None]) -> str:
    if not groups:
        return '<p class="note">No task results.</p>'
    headers = ("Task", "Replicates", "Statuses", "Mean score", "Avg duration", "Tokens")
    rows = [
        [
            task_id,
            str(len(group)),
            " ".join(r.final_status.value for r in group),
            score_with_interval(estimates[task_id]),
            format_duration(sum(r.duration_seconds for r in group) / len(group)),
            format_tokens(sum(r.total_token_usage.total_tokens for r in group)),
        ]
        for task_id, group in groups.items()
    ]
    return _table(headers, rows, numeric=frozenset({1, 3, 4, 5}))
