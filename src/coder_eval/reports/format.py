"""Formatting shared by every renderer, so a number reads the same in Markdown, HTML and JUnit.

A missing value is never shown as zero: an unscored task is `n/a`, an unpriced one `unpriced`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from coder_eval.models.results import CriterionResult
from coder_eval.models.status import FinalStatus

Outcome = Literal["pass", "fail", "info", "skipped"]

OUTCOME_MARK: dict[Outcome, str] = {"pass": "✓", "fail": "✗", "info": "○", "skipped": "–"}
OUTCOME_LABEL: dict[Outcome, str] = {
    "pass": "pass",
    "fail": "fail",
    "info": "informational — not gated",
    "skipped": "not evaluated",
}
CATEGORY_LABEL: dict[str, str] = {
    "succeeded": "succeeded",
    "failed": "failed",
    "error": "error",
    "ungraded": "not graded",
}
NOT_AVAILABLE = "n/a"


def format_score(value: float | None) -> str:
    """A 0–1 score to three decimals; `n/a` when the task was never scored."""
    return NOT_AVAILABLE if value is None else f"{value:.3f}"


def format_percent(value: float | None) -> str:
    """A 0–1 ratio as a percentage; `n/a` when the ratio is unknown (for example 0/0)."""
    return NOT_AVAILABLE if value is None else f"{value * 100:.1f}%"


def format_duration(seconds: float | None) -> str:
    """`1.2s` under a minute, `3m 04s` under an hour, `1h 02m` beyond."""
    if seconds is None:
        return NOT_AVAILABLE
    if seconds < 60:
        return f"{seconds:.1f}s"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s"


def format_usd(value: float | None, *, floor: bool = False) -> str:
    """Dollars; `unpriced` for None. `floor=True` marks a total that misses some spend (`≥ $0.12`)."""
    if value is None:
        return "unpriced"
    digits = 4 if 0 < abs(value) < 0.01 else 2
    text = f"${value:.{digits}f}"
    return f"≥ {text}" if floor else text


def format_spend(value: float | None, *, ran: bool, floor: bool = False) -> str:
    """A judge or simulator cost: `none` when nothing ran, else as format_usd (`unpriced` when unpriced)."""
    return format_usd(value, floor=floor) if ran else "none"


def format_tokens(count: int | None) -> str:
    """Token counts compacted for tables: `950`, `12.3k`, `4.1M`."""
    if count is None:
        return NOT_AVAILABLE
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def truncate(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters, saying how much was dropped."""
    kept, marker = truncation(text, limit)
    return kept + marker


def truncation(text: str, limit: int) -> tuple[str, str]:
    """(what `truncate` keeps of `text`, the marker it appends: empty when nothing was cut)."""
    if len(text) <= limit:
        return text, ""
    marker = f" … [{len(text) - limit} more chars]"
    return text[: max(0, limit - len(marker))], marker


def row_status(row: Mapping[str, Any]) -> FinalStatus:
    """The status of a run.json row. An unknown value reads as ERROR so it can never pass silently."""
    try:
        return FinalStatus(str(row.get("status")))
    except ValueError:
        return FinalStatus.ERROR


def replicate_suffix(replicate_index: int) -> str:
    """` [rep N]` for every replicate after the first, so replicate 0 keeps the bare task id."""
    return f" [rep {replicate_index}]" if replicate_index > 0 else ""


def criteria_tally(criteria: list[CriterionResult]) -> tuple[int, int]:
    """(passed, total) over gating criteria only: informational ones never count either way."""
    gating = [c for c in criteria if c.gating]
    return sum(c.passed for c in gating), len(gating)


Links = tuple[tuple[str, str], ...]
"""(label, relative href) pairs for a page's navigation line."""


def nav_html(links: Links) -> str:
    """`<nav>` with links to the run's other pages (relative, so an exported or copied run keeps working)."""
    from html import escape

    if not links:
        return ""
    items = " · ".join(f'<a href="{escape(href, quote=True)}">{escape(label)}</a>' for label, href in links)
    return f'<nav class="pages">{items}</nav>'
