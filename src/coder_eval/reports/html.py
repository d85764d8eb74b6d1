"""Single-file HTML reports for a run and for one task.

Each page is self-contained: styles and the small sorting script are inline, nothing is fetched
from the network, and every string that came from a task, an agent or a judge is HTML-escaped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from coder_eval.models.results import CommandResult, CriterionResult, EvaluationResult
from coder_eval.models.run import RunSummary
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import TurnRecord
from coder_eval.reports.format import (
    CATEGORY_LABEL,
    OUTCOME_LABEL,
    OUTCOME_MARK,
    Links,
    criteria_tally,
    format_duration,
    format_percent,
    format_score,
    format_spend,
    format_tokens,
    format_usd,
    nav_html,
    replicate_suffix,
    row_status,
    truncate,
)
from coder_eval.reports.html_page import cell, escape, header_row, network_table, page

DETAIL_LIMIT = 2000
PARAMETER_LIMIT = 300


# --- shared building blocks -------------------------------------------------------------------


def _badge(status: FinalStatus) -> str:
    category = status.category
    title = escape(CATEGORY_LABEL[category])
    return f'<span class="badge cat-{category}" title="{title}">{escape(status.icon)} {status.value}</span>'


def _early_stop_badge(reason: str) -> str:
    return f'<span class="badge early" title="{escape(reason)}">stopped early</span>'


def _pre(text: str) -> str:
    return f"<pre>{escape(truncate(text, DETAIL_LIMIT))}</pre>"


def _criteria_table(criteria: list[CriterionResult]) -> str:
    if not criteria:
        return '<p class="note">No criteria results.</p>'
    rows = [
        f'<tr class="outcome-{c.outcome}">'
        + cell(f"{OUTCOME_MARK[c.outcome]} {OUTCOME_LABEL[c.outcome]}")
        + cell(c.criterion_type)
        + cell(c.description)
        + cell(format_score(c.score) if c.evaluation_status == "evaluated" else "n/a", numeric=True)
        + cell(format_score(c.pass_threshold), numeric=True)
        + cell(truncate(c.error or c.details, DETAIL_LIMIT))
        + "</tr>"
        for c in criteria
    ]
    header = header_row("Outcome", "Criterion", "Description", "Score", "Threshold", "Details")
    return f"<table>{header}<tbody>{''.join(rows)}</tbody></table>"


def _tally(criteria: list[CriterionResult]) -> str:
    passed, total = criteria_tally(criteria)
    return f"{passed}/{total} passed"


def _commands_table(title: str, commands: list[CommandResult]) -> str:
    if not commands:
        return ""
    rows = [
        "<tr>"
        + cell(c.command)
        + cell("n/a" if c.exit_code is None else c.exit_code, numeric=True)
        + cell(format_duration(c.duration_seconds), numeric=True)
        + cell(truncate(c.error or c.stderr, DETAIL_LIMIT))
        + "</tr>"
        for c in commands
    ]
    header = header_row("Command", "Exit code", "Duration", "Error / stderr")
    return f"<h3>{escape(title)}</h3><table>{header}<tbody>{''.join(rows)}</tbody></table>"


def _error_block(result: EvaluationResult) -> str:
    parts = [
        ("Error", result.error_message),
        ("Details", result.error_details),
        ("Log tail", result.error_log_tail),
    ]
    return "".join(f"<h3>{label}</h3>{_pre(text)}" for label, text in parts if text)


def _result_body(result: EvaluationResult) -> str:
    """Everything below a task's headline: criteria, diagnostics, setup commands, errors."""
    parts = [_criteria_table(result.success_criteria_results)]
    if result.post_failure_criteria_results:
        parts.append("<h3>Post-failure evidence (diagnostic only)</h3>")
        parts.append(_criteria_table(result.post_failure_criteria_results))
    parts.append(network_table(result))
    parts.append(_commands_table("Pre-run commands", result.pre_run_results))
    parts.append(_commands_table("Post-run commands", result.post_run_results))
    parts.append(_error_block(result))
    return "".join(parts)


def _task_headline(result: EvaluationResult) -> str:
    pieces = [
        _badge(result.final_status),
        f"<strong>{escape(result.task_id + replicate_suffix(result.replicate_index))}</strong>",
        f"variant {escape(result.variant_id)}",
        f"score {format_score(result.weighted_score)}",
        escape(_tally(result.success_criteria_results)),
    ]
    if result.early_stop:
        pieces.append(_early_stop_badge(result.early_stop.reason))
    return " · ".join(pieces)


# --- run page ---------------------------------------------------------------------------------


def render_run_html(
    summary: RunSummary,
    results: list[EvaluationResult],
    *,
    links: Links = (),
    task_pages: Mapping[tuple[str, str, int], str] | None = None,
) -> str:
    """The whole run on one page: headline numbers, a sortable table, and each task expandable.

    `links` go to the run's other pages; `task_pages` maps (variant, task, replicate) to the
    relative href of that unit's task.html, linked from its details."""
    ordered = sorted(results, key=lambda r: (r.variant_id, r.task_id, r.replicate_index))
    pages = task_pages or {}

    def page_link(r: EvaluationResult) -> str:
        href = pages.get((r.variant_id, r.task_id, r.replicate_index))
        return f' <a href="{escape(href)}">task page</a>' if href else ""

    body = [
        nav_html(links),
        _run_header(summary),
        _run_table(summary.task_results),
        "<h2>Task details</h2>",
        *(f"<details><summary>{_task_headline(r)}{page_link(r)}</summary>{_result_body(r)}</details>" for r in ordered),
        _skipped_list(summary),
        _conversions_list(summary),
    ]
    return page(f"Coder Eval run {summary.run_id}", body)


def _run_header(summary: RunSummary) -> str:
    floor = not summary.cost_complete
    chips = [
        f"{summary.tasks_run} run",
        f"{summary.tasks_succeeded} succeeded",
        f"{summary.tasks_failed} failed",
        f"{summary.tasks_error} errors",
        f"{summary.tasks_not_graded} not graded",
    ]
    cost = (
        f"Cost: total {format_usd(summary.total_cost_usd, floor=floor)} · "
        f"agent {format_usd(summary.agent_cost_usd, floor=floor)} · "
        f"judges {format_spend(summary.judge_cost_usd, ran=summary.judges_ran, floor=floor)} · "
        f"simulated user {format_spend(summary.simulator_cost_usd, ran=summary.simulator_ran, floor=floor)}"
    )
    note = summary.progress_note()
    adaptive = summary.adaptive_note()
    lines = [
        f"<h1>Coder Eval run {escape(summary.run_id)}</h1>",
        *([f'<p class="note"><strong>{escape(note)}</strong></p>'] if note else []),
        *([f'<p class="note">{escape(adaptive)}</p>'] if adaptive else []),
        '<p class="chips">' + "".join(f"<span>{escape(c)}</span>" for c in chips) + "</p>",
        f"<p>Pass rate <strong>{format_percent(summary.pass_rate)}</strong> · "
        f"error share {format_percent(summary.error_share)} · "
        f"duration {format_duration(summary.total_duration_seconds)}</p>",
        f"<p>{escape(cost)}</p>",
    ]
    if floor:
        lines.append(
            f'<p class="note">Cost is incomplete for {summary.tasks_cost_incomplete} task(s): '
            "these figures are lower bounds.</p>"
        )
    return "\n".join(lines)


def _run_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return '<h2>Tasks</h2><p class="note">No tasks were run.</p>'
    header = header_row("Status", "Task", "Variant", "Rep", "Score", "Duration", "Turns", "Tokens", "Cost")
    body = "".join(_run_table_row(row) for row in rows)
    return f'<h2>Tasks</h2><table class="sortable">{header}<tbody>{body}</tbody></table>'


def _run_table_row(row: Mapping[str, Any]) -> str:
    status = row_status(row)
    badges = _badge(status)
    if row.get("stopped_early"):
        badges += " " + _early_stop_badge(str(row.get("early_stop_reason") or ""))
    score = row.get("weighted_score")
    cost = row.get("total_cost_usd")
    return (
        f'<tr><td data-v="{status.category}">{badges}</td>'
        + cell(row.get("task_id", ""))
        + cell(row.get("variant_id", ""))
        + cell(row.get("replicate_index", 0), numeric=True)
        + cell(format_score(score), numeric=True, sort_key=-1.0 if score is None else score)
        + cell(format_duration(row.get("duration")), numeric=True, sort_key=row.get("duration") or 0.0)
        + cell(row.get("iteration_count", 0), numeric=True)
        + cell(format_tokens(row.get("total_tokens")), numeric=True, sort_key=row.get("total_tokens") or 0)
        + cell(
            format_usd(cost, floor=not row.get("cost_complete", True)),
            numeric=True,
            sort_key=-1.0 if cost is None else cost,
        )
        + "</tr>"
    )


def _skipped_list(summary: RunSummary) -> str:
    if not summary.skipped_tasks:
        return ""
    items = "".join(f"<li>{escape(s.path)}: {escape(s.reason)}</li>" for s in summary.skipped_tasks)
    return f"<h2>Skipped tasks</h2><ul>{items}</ul>"


def _conversions_list(summary: RunSummary) -> str:
    if not summary.record_conversions:
        return ""
    items = "".join(f"<li>{escape(line)}</li>" for line in summary.record_conversions)
    return f"<h2>Records read from another format</h2><ul>{items}</ul>"


# --- task page --------------------------------------------------------------------------------


def render_task_html(result: EvaluationResult, *, links: Links = ()) -> str:
    """One task replicate: verdict, criteria, setup commands, errors, and every turn's tool calls."""
    title = f"{result.task_id}{replicate_suffix(result.replicate_index)}"
    body = [
        nav_html(links),
        f"<h1>Task {escape(title)}</h1>",
        f"<p>{_task_headline(result)}</p>",
        _task_facts(result),
        "<h2>Criteria</h2>",
        _result_body(result),
        _dialog_section(result.simulation),
        _turns_section(result.iterations),
    ]
    return page(f"Coder Eval task {title}", body)


def _dialog_section(simulation: dict[str, Any] | None) -> str:
    """A simulated dialog as a conversation: who said what, and why it ended."""
    if not simulation or not simulation.get("dialog"):
        return ""
    lines = []
    for message in simulation["dialog"]:
        who = "Simulated user" if message.get("role") == "user" else "Agent"
        lines.append(
            f'<div class="msg {escape(str(message.get("role")))}"><strong>{who}</strong>'
            f"{_pre(str(message.get('text', '')))}</div>"
        )
    trial = f"Trial {int(simulation.get('replicate_index', 0)) + 1} of {simulation.get('n_trials', 1)}"
    reason = escape(str(simulation.get("stop_reason")))
    return f"<h2>Dialog</h2><p>{escape(trial)} · ended by <code>{reason}</code></p>" + "".join(lines)


def _task_facts(result: EvaluationResult) -> str:
    usage = result.total_token_usage
    facts = [
        ("Description", result.task_description),
        ("Dataset", f"suite {result.suite_id} · row {result.row_id}" if result.suite_id else ""),
        ("Agent", " / ".join(x for x in (result.agent_type, result.model_used) if x)),
        ("Duration", format_duration(result.duration_seconds)),
        ("Turns", str(result.iteration_count)),
        ("Tokens", format_tokens(usage.total_tokens)),
        ("Agent cost", format_usd(usage.total_cost_usd)),
    ]
    if result.early_stop:
        stop = result.early_stop
        facts.append(("Stopped early", f"{stop.reason} ({stop.deciding_criterion_type or 'n/a'})"))
    items = "".join(f"<li>{escape(k)}: {escape(v)}</li>" for k, v in facts if v)
    return f"<ul>{items}</ul>"


def _turns_section(turns: list[TurnRecord]) -> str:
    if not turns:
        return '<h2>Turns</h2><p class="note">No turns were recorded.</p>'
    header = header_row("Turn", "Duration", "Tool calls", "Tokens", "Crashed")
    rows = "".join(
        "<tr>"
        + cell(t.iteration, numeric=True)
        + cell(format_duration(t.duration_seconds), numeric=True)
        + cell(len(t.commands), numeric=True)
        + cell(format_tokens(t.token_usage.total_tokens), numeric=True)
        + cell(f"yes: {t.crash_reason or 'no reason recorded'}" if t.crashed else "no")
        + "</tr>"
        for t in turns
    )
    calls = "".join(_tool_calls(t) for t in turns if t.commands)
    return f"<h2>Turns</h2><table>{header}<tbody>{rows}</tbody></table>{calls}"


def _tool_calls(turn: TurnRecord) -> str:
    header = header_row("#", "Tool", "Status", "Duration (ms)", "Parameters")
    rows = "".join(
        "<tr>"
        + cell(c.sequence, numeric=True)
        + cell(c.tool_name)
        + cell(c.status)
        + cell(f"{c.duration_ms:.0f}", numeric=True)
        + cell(truncate(json.dumps(c.parameters, ensure_ascii=False, default=str), PARAMETER_LIMIT))
        + "</tr>"
        for c in turn.commands
    )
    summary = f"Turn {turn.iteration}: {len(turn.commands)} tool call(s)"
    return f"<details><summary>{summary}</summary><table>{header}<tbody>{rows}</tbody></table></details>"
