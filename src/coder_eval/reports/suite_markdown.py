"""suite.md: a dataset suite's rollup as Markdown — counts, metrics, gates, confusion, failures."""

from __future__ import annotations

from typing import Any

from coder_eval.experiments.passk import TaskTrials
from coder_eval.models.suite import CriterionAggregate, CriterionStat, FailedRowSummary, SuiteRollup, ThresholdCheck
from coder_eval.reports import passk_tables
from coder_eval.reports.format import format_percent, format_score
from coder_eval.reports.markdown import cell

_PASS, _FAIL = "✓ pass", "✗ FAIL"


def _verdict(passed: bool) -> str:
    return _PASS if passed else _FAIL


def _metric(name: str, value: float) -> str:
    """`count` as an integer, every other metric to three decimals."""
    return str(int(value)) if name == "count" else f"{value:.3f}"


def _headline(rollup: SuiteRollup) -> list[str]:
    has_gates = any(a.threshold_checks for a in rollup.criterion_aggregates)
    gates = _verdict(rollup.passed) if has_gates else "no suite thresholds"
    return [
        f"# Suite {cell(rollup.suite_id)} · variant {cell(rollup.variant_id)}",
        "",
        f"- Suite gates: **{gates}**",
        f"- Rows: {rollup.rows_total} total · {rollup.rows_passed} passed · {rollup.rows_failed} failed"
        f" · {rollup.rows_error} error",
        f"- Pass rate: {format_percent(rollup.pass_rate)}",
        *_pass_k_line(rollup),
        f"- Average weighted score: {format_score(rollup.average_weighted_score)}",
        "",
    ]


def _pass_k_line(rollup: SuiteRollup) -> list[str]:
    """`pass@k / pass^k: k=2 0.750 / 0.500 · …` beside the pass rate, when rows were replicated."""
    figures = [f for f in rollup.pass_k if f.k > 1]
    if not figures:
        return []
    return ["- pass@k / pass^k: " + " · ".join(f"k={f.k} {f.pass_at_k:.3f} / {f.pass_hat_k:.3f}" for f in figures)]


def _pass_k_section(rollup: SuiteRollup) -> list[str]:
    """The per-k table with intervals and the per-row strips, rebuilt from the recorded strips."""
    if not rollup.replicate_strips:
        return []
    trials = [TaskTrials.from_strip(row, strip) for row, strip in rollup.replicate_strips.items()]
    return [*passk_tables.markdown_section({rollup.variant_id: trials}, single=True), ""]


def _stats_table(stats: list[CriterionStat]) -> list[str]:
    if not stats:
        return []
    lines = [
        "## Criteria",
        "",
        "| # | Criterion | Rows evaluated | Average score | Errors |",
        "| ---: | --- | ---: | ---: | ---: |",
    ]
    for index, stat in enumerate(stats, start=1):
        lines.append(
            f"| {index} | {cell(stat.criterion_type)} | {stat.rows_evaluated} | "
            f"{format_score(stat.average_score)} | {stat.error_count} |"
        )
    return [*lines, ""]


def _metrics_table(metrics: dict[str, float]) -> list[str]:
    lines = ["| Metric | Value |", "| --- | ---: |"]
    lines += [f"| {cell(name)} | {_metric(name, value)} |" for name, value in metrics.items()]
    return [*lines, ""]


def _threshold_table(checks: list[ThresholdCheck]) -> list[str]:
    if not checks:
        return []
    lines = ["Suite thresholds:", "", "| Metric | Minimum | Actual | Result |", "| --- | ---: | ---: | --- |"]
    for check in checks:
        actual = "not emitted" if check.actual_value is None else f"{check.actual_value:.3f}"
        lines.append(f"| {cell(check.metric)} | {check.min_value:.3f} | {actual} | {_verdict(check.passed)} |")
    return [*lines, ""]


def _per_label_table(per_label: dict[str, Any]) -> list[str]:
    if not per_label:
        return []
    lines = ["Per label:", "", "| Label | Precision | Recall | F1 | Support |", "| --- | ---: | ---: | ---: | ---: |"]
    for label, s in per_label.items():
        lines.append(f"| {cell(label)} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | {s['support']} |")
    return [*lines, ""]


def _confusion_table(labels: list[str], confusion: dict[str, dict[str, int]]) -> list[str]:
    if not labels:
        return []
    header = "| expected ↓ / observed → | " + " | ".join(cell(label) for label in labels) + " |"
    rule = "| --- |" + " ---: |" * len(labels)
    rows = [
        f"| {cell(expected)} | " + " | ".join(str(confusion.get(expected, {}).get(o, 0)) for o in labels) + " |"
        for expected in labels
    ]
    return ["Confusion matrix:", "", header, rule, *rows, ""]


def _aggregate_section(index: int, aggregate: CriterionAggregate) -> list[str]:
    title = f"### {index}. {cell(aggregate.criterion_type)}" + (
        f": {cell(aggregate.description, limit=300)}" if aggregate.description else ""
    )
    lines = [
        title,
        "",
        f"Rows: {aggregate.rows_total} ({aggregate.rows_excluded} excluded, not evaluated)"
        + (f" · gates {_verdict(aggregate.passed)}" if aggregate.threshold_checks else ""),
        "",
    ]
    if aggregate.error:
        lines += [f"Aggregation error: {cell(aggregate.error, limit=500)}", ""]
    lines += _metrics_table(aggregate.metrics)
    lines += _threshold_table(aggregate.threshold_checks)
    lines += _per_label_table(aggregate.details.get("per_label") or {})
    lines += _confusion_table(aggregate.details.get("labels") or [], aggregate.details.get("confusion") or {})
    return lines


def _failed_samples(samples: list[FailedRowSummary], rows_not_passed: int) -> list[str]:
    if not samples:
        return []
    shown = f" (first {len(samples)} of {rows_not_passed})" if rows_not_passed > len(samples) else ""
    lines = [
        f"## Failed rows{shown}",
        "",
        "| Row | Rep | Status | Score | Reasons | task.json |",
        "| --- | ---: | --- | ---: | --- | --- |",
    ]
    for s in samples:
        reasons = "; ".join(s.failure_reasons)
        if s.error_message:
            reasons = f"{reasons}; error: {s.error_message}" if reasons else f"error: {s.error_message}"
        lines.append(
            f"| {cell(s.row_id or s.task_id)} | {s.replicate_index} | {s.final_status} | "
            f"{format_score(s.weighted_score)} | {cell(reasons, limit=300)} | {cell(s.task_json_relpath or '')} |"
        )
    return [*lines, ""]


def render_suite_markdown(rollup: SuiteRollup) -> str:
    """suite.md for one rollup."""
    lines = _headline(rollup)
    lines += _pass_k_section(rollup)
    lines += _stats_table(rollup.criterion_stats)
    if rollup.criterion_aggregates:
        lines += ["## Suite metrics", ""]
        for index, aggregate in enumerate(rollup.criterion_aggregates, start=1):
            lines += _aggregate_section(index, aggregate)
    lines += _failed_samples(rollup.failed_samples, rollup.rows_failed + rollup.rows_error)
    return "\n".join(lines).rstrip("\n") + "\n"
