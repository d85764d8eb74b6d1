"""Markdown reports: run.md for a whole run and a one-page summary of a single task.

Every string that did not come from this module (task ids, criterion details, command output,
error messages, the model's name) goes through `cell`, `code` or `fenced`, which show it as text
(see common/untrusted_text.py): run.md is what the GitHub Action appends to a job summary, so no
HTML, link, image, heading or table break may come from an agent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from coder_eval.common.untrusted_text import clean_text, markdown_block, markdown_code_span, markdown_inline
from coder_eval.models.results import (
    CommandResult,
    CriterionResult,
    EvaluationResult,
    criterion_title,
    score_against_threshold,
)
from coder_eval.models.run import RunSummary
from coder_eval.models.turns import agent_turns, expected_turns, over_expected_turns
from coder_eval.reports.format import (
    OUTCOME_LABEL,
    OUTCOME_MARK,
    format_duration,
    format_percent,
    format_score,
    format_spend,
    format_tokens,
    format_usd,
    replicate_suffix,
    row_status,
    truncate,
    truncation,
)
from coder_eval.reports.reasons import failure_reason

DETAIL_LIMIT = 500
CELL_LIMIT = 120

_TASK_TABLE_HEADER = (
    "| Status | Task | Variant | Rep | Score | Duration | Turns | Tokens | Cost |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
)
_CRITERIA_TABLE_HEADER = (
    "| | Criterion | Description | Score | Threshold | Details |",
    "| --- | --- | --- | ---: | ---: | --- |",
)
_COMMAND_TABLE_HEADER = (
    "| Command | Exit code | Duration | Error |",
    "| --- | ---: | ---: | --- |",
)


def cell(text: object, *, limit: int = CELL_LIMIT) -> str:
    """Any value as Markdown text, safe inside a table cell: one line of at most `limit` characters
    (cut before escaping, so no escape is split), HTML and Markdown syntax shown literally."""
    kept, marker = truncation(" ".join(clean_text(str(text)).split()), limit)
    return markdown_inline(kept) + marker


def code(text: object, *, limit: int = CELL_LIMIT) -> str:
    """Any value as inline code (one line, at most `limit` characters), safe inside a table cell."""
    kept, marker = truncation(" ".join(clean_text(str(text)).split()), limit)
    return markdown_code_span(kept) + marker


def fenced(text: str, *, info: str = "") -> list[str]:
    """A code block whose fence is longer than any backtick run inside, so content cannot close it."""
    return markdown_block(text, info=info)


# --- run.md -----------------------------------------------------------------------------------


def render_run_markdown(summary: RunSummary, results: list[EvaluationResult]) -> str:
    """run.md: headline numbers, the task table, why each non-passing task fell short, skips."""
    table = (task_table_row(row) for row in summary.task_results)
    problems = (block for r in _ordered(results) if (block := problem_block(r)) is not None)
    return "".join(run_markdown_chunks(summary, table, problems))


def run_markdown_chunks(summary: RunSummary, table: Iterable[str], problems: Iterable[str]) -> Iterator[str]:
    """run.md in pieces: `table` holds the task table's lines (`task_table_row`, in row order) and
    `problems` each failed or errored row's section (`problem_block`), so a long run can pass them
    in from a spool. The pieces joined are the whole page."""
    yield "\n".join(_run_header(summary))
    lines = iter(table)
    first = next(lines, None)
    if first is None:
        yield "\n\n" + "\n".join(["## Tasks", "", "No tasks were run."])
    else:
        yield "\n\n" + "\n".join(["## Tasks", "", *_TASK_TABLE_HEADER, first])
        for line in lines:
            yield "\n" + line
    for i, block in enumerate(problems):
        yield ("\n\n## Failures and errors\n\n" if i == 0 else "\n\n") + block
    skipped = _skipped_section(summary)
    if skipped:
        yield "\n\n" + "\n".join(skipped)
    converted = _conversions_section(summary)
    if converted:
        yield "\n\n" + "\n".join(converted)
    yield "\n"


def problem_block(result: EvaluationResult) -> str | None:
    """A failed or errored row's section of run.md; None for any other row."""
    if result.final_status.category not in ("failed", "error"):
        return None
    return "\n".join(_problem_section(result))


def _run_header(summary: RunSummary) -> list[str]:
    counts = (
        f"- **Tasks:** {summary.tasks_run} run · {summary.tasks_succeeded} succeeded · "
        f"{summary.tasks_failed} failed · {summary.tasks_error} errors · "
        f"{summary.tasks_not_graded} not graded"
    )
    note = summary.progress_note()
    adaptive = summary.adaptive_note()
    return [
        f"# Coder Eval run {cell(summary.run_id)}",
        "",
        *([f"> **{cell(note, limit=DETAIL_LIMIT)}**", ""] if note else []),
        *([f"> {cell(adaptive)}", ""] if adaptive else []),
        counts,
        f"- **Pass rate:** {format_percent(summary.pass_rate)} · "
        f"**Error share:** {format_percent(summary.error_share)}",
        f"- **Duration:** {format_duration(summary.total_duration_seconds)} (max parallel {summary.max_parallel})",
        *_cost_lines(summary),
    ]


def _cost_lines(summary: RunSummary) -> list[str]:
    floor = not summary.cost_complete
    lines = [
        f"- **Cost:** total {format_usd(summary.total_cost_usd, floor=floor)} · "
        f"agent {format_usd(summary.agent_cost_usd, floor=floor)} · "
        f"judges {format_spend(summary.judge_cost_usd, ran=summary.judges_ran, floor=floor)} · "
        f"simulated user {format_spend(summary.simulator_cost_usd, ran=summary.simulator_ran, floor=floor)}"
    ]
    if floor:
        lines += [
            "",
            f"> Cost is incomplete for {summary.tasks_cost_incomplete} task(s); "
            "the figures above are lower bounds, not the full bill.",
        ]
    return lines


def task_table_row(row: Mapping[str, Any]) -> str:
    """One line of run.md's task table."""
    status = row_status(row)
    label = f"{status.icon} {status.value}" + (" (stopped early)" if row.get("stopped_early") else "")
    if over_expected_turns(dict(row)):
        label += f" ⚠ {row.get('total_turns')}/{row.get('expected_turns')} turns"
    cost = format_usd(row.get("total_cost_usd"), floor=not row.get("cost_complete", True))
    cells = [
        label,
        row.get("task_id", ""),
        row.get("variant_id", ""),
        row.get("replicate_index", 0),
        format_score(row.get("weighted_score")),
        format_duration(row.get("duration")),
        row.get("iteration_count", 0),
        format_tokens(row.get("total_tokens")),
        cost,
    ]
    return "| " + " | ".join(cell(value) for value in cells) + " |"


def _problem_section(result: EvaluationResult) -> list[str]:
    status = result.final_status
    heading = (
        f"### {status.icon} {cell(result.task_id)}{replicate_suffix(result.replicate_index)} "
        f"({cell(result.variant_id)}) — {status.value}"
    )
    lines = [heading, "", f"Score: {format_score(result.weighted_score)}"]
    reason = failure_reason(result)
    if reason:  # the same line the terminal printed: read this first
        lines += ["", f"**Why:** {cell(reason, limit=1000)}"]
    bullets = [line for c in result.success_criteria_results if _needs_mention(c) for line in _criterion_bullet(c)]
    if bullets:
        lines += ["", *bullets]
    if result.error_message:
        lines += ["", "Error:", *fenced(truncate(result.error_message, DETAIL_LIMIT))]
    if result.reference_copies:
        removed = [f"- {cell(c, limit=DETAIL_LIMIT)}" for c in result.reference_copies]
        lines += ["", "Reference content removed from:", *removed]
    return lines


def _needs_mention(criterion: CriterionResult) -> bool:
    """Failed, unevaluated, and below-threshold informational criteria; a passing one says nothing."""
    return criterion.outcome in ("fail", "skipped") or (criterion.outcome == "info" and not criterion.passed)


def _criterion_bullet(criterion: CriterionResult) -> list[str]:
    outcome = criterion.outcome
    head = f"- {OUTCOME_MARK[outcome]} **{cell(criterion_title(criterion))}**"
    if outcome == "skipped":
        head += f" — {OUTCOME_LABEL[outcome]}"
    elif outcome == "info":
        head += f" — {score_against_threshold(criterion)} ({OUTCOME_LABEL[outcome]})"
    else:
        head += f" — {score_against_threshold(criterion)}"
    extra = [text for text in (criterion.details, criterion.error or "") if text]
    return [head, *(f"  - {cell(text, limit=DETAIL_LIMIT)}" for text in extra)]


def _skipped_section(summary: RunSummary) -> list[str]:
    if not summary.skipped_tasks:
        return []
    lines = ["## Skipped tasks", ""]
    lines += [f"- {cell(s.path)}: {cell(s.reason, limit=DETAIL_LIMIT)}" for s in summary.skipped_tasks]
    return lines


CONVERSIONS_HEADING = "## Records read from another format"


def _conversions_section(summary: RunSummary) -> list[str]:
    """What was mapped, and what could not be, when records came from another format (the reference's)."""
    if not summary.record_conversions:
        return []
    lines = [CONVERSIONS_HEADING, "", "Some records were written in another format; this is how they were read.", ""]
    lines += [f"- {cell(line, limit=DETAIL_LIMIT)}" for line in summary.record_conversions]
    return lines


def _ordered(results: Iterable[EvaluationResult]) -> list[EvaluationResult]:
    return sorted(results, key=lambda r: (r.variant_id, r.task_id, r.replicate_index))


# --- one task ---------------------------------------------------------------------------------


def render_task_markdown(result: EvaluationResult) -> str:
    """A single task: identity, verdict, every criterion, setup/teardown commands, any error."""
    sections = [
        _task_header(result),
        _criteria_table("Criteria", result.success_criteria_results),
        _criteria_table("Post-failure evidence (diagnostic only)", result.post_failure_criteria_results),
        _command_table("Pre-run commands", result.pre_run_results),
        _command_table("Post-run commands", result.post_run_results),
        _copies_section(result),
        _error_section(result),
    ]
    return "\n\n".join("\n".join(lines) for lines in sections if lines) + "\n"


def _copies_section(result: EvaluationResult) -> list[str]:
    if not result.reference_copies:
        return []
    return ["## Reference content removed", "", *(f"- {cell(c, limit=DETAIL_LIMIT)}" for c in result.reference_copies)]


def _task_header(result: EvaluationResult) -> list[str]:
    status = result.final_status
    usage = result.total_token_usage
    lines = [
        f"# Task {cell(result.task_id)}{replicate_suffix(result.replicate_index)}",
        "",
        f"- Status: {status.icon} {status.value} ({status.category})",
        f"- Score: {format_score(result.weighted_score)}",
        f"- Variant: {cell(result.variant_id)} · replicate {result.replicate_index}",
        f"- Duration: {format_duration(result.duration_seconds)} · turns {result.iteration_count}",
        f"- Tokens: {format_tokens(usage.total_tokens)} · agent cost {format_usd(usage.total_cost_usd)}",
    ]
    if result.suite_id:
        lines.append(f"- Dataset: suite {cell(result.suite_id)} · row {cell(result.row_id or 'n/a')}")
    if result.model_used:
        lines.append(f"- Model: {cell(result.model_used)}")
    if result.early_stop:
        lines.append(f"- Stopped early: {cell(result.early_stop.reason, limit=DETAIL_LIMIT)}")
    target = expected_turns(result)
    if target is not None and agent_turns(result) > target:
        lines.append(f"- ⚠ Over expected turns: {agent_turns(result)} used, {target} expected")
    return lines


def _criteria_table(title: str, criteria: list[CriterionResult]) -> list[str]:
    if not criteria:
        return []
    rows = [
        "| "
        + " | ".join(
            [
                f"{OUTCOME_MARK[c.outcome]} {OUTCOME_LABEL[c.outcome]}",
                cell(c.criterion_type),
                cell(c.description),
                format_score(c.score) if c.evaluation_status == "evaluated" else "n/a",
                format_score(c.pass_threshold),
                cell(c.error or c.details, limit=DETAIL_LIMIT),
            ]
        )
        + " |"
        for c in criteria
    ]
    return [f"## {title}", "", *_CRITERIA_TABLE_HEADER, *rows]


def _command_table(title: str, commands: list[CommandResult]) -> list[str]:
    if not commands:
        return []
    rows = [
        f"| {cell(c.command)} | {'n/a' if c.exit_code is None else c.exit_code} | "
        f"{format_duration(c.duration_seconds)} | {cell(c.error or '', limit=DETAIL_LIMIT)} |"
        for c in commands
    ]
    return [f"## {title}", "", *_COMMAND_TABLE_HEADER, *rows]


def _error_section(result: EvaluationResult) -> list[str]:
    parts = [
        ("Message", result.error_message),
        ("Details", result.error_details),
        ("Log tail", result.error_log_tail),
    ]
    present = [(label, text) for label, text in parts if text]
    if not present:
        return []
    lines = ["## Error"]
    for label, text in present:
        lines += ["", f"{label}:", *fenced(truncate(text, DETAIL_LIMIT))]
    return lines
