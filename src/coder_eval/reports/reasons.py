"""Why a unit did not succeed, in one line: what the terminal, run.md and the summaries show first.

A FAILURE names its first gating criterion that failed and that criterion's own reason; an
ERROR gives its error; either adds how many tool calls the agent's permissions refused, since a
refusal is the usual hidden cause of a plausible-looking failure. Criterion details and errors
can carry text the agent wrote, so everything shown goes through `display_text` first.
"""

from __future__ import annotations

from coder_eval.common.untrusted_text import clean_line
from coder_eval.models.results import CriterionResult, EvaluationResult
from coder_eval.models.telemetry import CommandStatistics

REASON_CHARS = 200


def display_text(text: str, limit: int = REASON_CHARS) -> str:
    """Agent-controlled text made safe for one terminal line: cleaned by the shared sanitiser
    (`common/untrusted_text.clean_line`: escape sequences and control characters gone, line breaks
    shown as ␊ so nothing passes for a line of its own, invisible characters shown), runs of
    spaces made one, cut at `limit` characters with an ellipsis."""
    flat = " ".join(clean_line(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def first_failed_gate(result: EvaluationResult) -> CriterionResult | None:
    """The first gating criterion that did not pass (the one to read first), or None."""
    return next((c for c in result.success_criteria_results if c.gating and c.outcome == "fail"), None)


def criterion_reason(criterion: CriterionResult) -> str:
    """`type 'description': why` for one criterion."""
    why = criterion.error or criterion.details or f"scored {criterion.score:.2f}"
    label = criterion.criterion_type
    if criterion.description:
        label += f" {criterion.description!r}"
    return f"{label}: {why}"


def refusal_note(stats: CommandStatistics) -> str | None:
    """`N tool call(s) refused by the agent's permissions (Bash 2)`, or None when none was."""
    if not stats.refused_commands:
        return None
    tools = ", ".join(f"{name} {count}" for name, count in sorted(stats.refused_by_tool.items()))
    return f"{stats.refused_commands} tool call(s) refused by the agent's permissions ({tools})"


def failure_reason(result: EvaluationResult, *, limit: int = REASON_CHARS) -> str | None:
    """One line saying why the unit did not succeed; None for a success or a unit not graded."""
    category = result.final_status.category
    if category == "succeeded":
        return None
    parts: list[str] = []
    if category == "error" or (result.error_message and category != "ungraded"):
        parts.append(result.error_message or "the run ended in error without a message")
    elif category == "failed":
        gate = first_failed_gate(result)
        if gate is not None:
            parts.append(criterion_reason(gate))
        elif result.max_turns_exhausted:
            parts.append("the agent used every turn it was allowed")
    shown = [display_text(p, limit) for p in parts]
    note = refusal_note(result.command_stats)
    if note is not None:  # the likeliest hidden cause: never cut off
        shown.append(display_text(note, limit))
    return "; ".join(shown) if shown else None
