"""The experiment page's SVG chart: each task's mean score per arm, with its interval as a whisker."""

from __future__ import annotations

from collections.abc import Sequence

from coder_eval.experiments.analysis import clamp_unit
from coder_eval.experiments.stats import MeanEstimate
from coder_eval.reports.experiment_markdown import score_with_interval
from coder_eval.reports.format import format_score
from coder_eval.reports.html_page import escape

ChartGroup = tuple[str, list[tuple[str, MeanEstimate | None]]]
"""(task id, [(variant id, estimate), …]) — one cluster of bars in the chart."""

PALETTE = ("#0969da", "#bf3989", "#1a7f37", "#9a6700", "#8250df", "#cf222e", "#1b7c83", "#57606a")
LABEL_WIDTH = 200
PLOT_WIDTH = 460
VALUE_WIDTH = 70
BAR_HEIGHT = 14
BAR_GAP = 4
GROUP_GAP = 14
TOP = 44
LABEL_CHARS = 28


def score_chart_svg(groups: Sequence[ChartGroup], series: Sequence[str]) -> str:
    """Horizontal bars of mean score (0–1) per task and variant, with CI whiskers, as inline SVG."""
    colors = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(series)}
    parts: list[str] = [_legend(series, colors), *_axis(_chart_height(groups))]
    y = TOP
    for task_id, bars in groups:
        parts.append(_group_label(task_id, y, len(bars)))
        for variant_id, estimate in bars:
            parts.append(_bar(variant_id, estimate, y, colors[variant_id]))
            y += BAR_HEIGHT + BAR_GAP
        y += GROUP_GAP
    width = LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH
    height = _chart_height(groups)
    return (
        f'<svg role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}"><title>Mean score per task and variant with confidence intervals</title>'
        + "".join(parts)
        + "</svg>"
    )


def _chart_height(groups: Sequence[ChartGroup]) -> int:
    bars = sum(len(b) for _, b in groups)
    return TOP + bars * (BAR_HEIGHT + BAR_GAP) + len(groups) * GROUP_GAP + 4


def _x(score: float) -> float:
    return LABEL_WIDTH + clamp_unit(score) * PLOT_WIDTH


def _legend(series: Sequence[str], colors: dict[str, str]) -> str:
    parts, x = [], LABEL_WIDTH
    for name in series:
        parts.append(
            f'<rect x="{x}" y="4" width="10" height="10" fill="{colors[name]}"/>'
            f'<text x="{x + 14}" y="13">{escape(name)}</text>'
        )
        x += 24 + 7 * min(len(name), 30)
    return "".join(parts)


def _axis(height: int) -> list[str]:
    lines = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = _x(tick)
        lines.append(f'<line class="axis" x1="{x:.1f}" y1="{TOP - 8}" x2="{x:.1f}" y2="{height}"/>')
        lines.append(f'<text x="{x:.1f}" y="{TOP - 12}" text-anchor="middle">{tick:g}</text>')
    return lines


def _group_label(task_id: str, y: int, bar_count: int) -> str:
    short = task_id if len(task_id) <= LABEL_CHARS else task_id[: LABEL_CHARS - 1] + "…"
    middle = y + (bar_count * (BAR_HEIGHT + BAR_GAP) - BAR_GAP) / 2 + 4
    return (
        f'<text x="{LABEL_WIDTH - 8}" y="{middle:.1f}" text-anchor="end">'
        f"<title>{escape(task_id)}</title>{escape(short)}</text>"
    )


def _bar(variant_id: str, estimate: MeanEstimate | None, y: int, color: str) -> str:
    label = escape(f"{variant_id}: {score_with_interval(estimate)}")
    if estimate is None:
        return f'<text x="{LABEL_WIDTH + 4}" y="{y + BAR_HEIGHT - 3}" class="note"><title>{label}</title>n/a</text>'
    width = _x(estimate.mean) - LABEL_WIDTH
    parts = [f'<rect x="{LABEL_WIDTH}" y="{y}" width="{width:.1f}" height="{BAR_HEIGHT}" fill="{color}" opacity=".8">']
    parts.append(f"<title>{label}</title></rect>")
    if not estimate.degenerate:
        parts.append(_whisker(estimate, y + BAR_HEIGHT / 2))
    parts.append(f'<text x="{_x(max(estimate.mean, estimate.high)) + 6:.1f}" y="{y + BAR_HEIGHT - 3}">')
    parts.append(f"{format_score(estimate.mean)}</text>")
    return "".join(parts)


def _whisker(estimate: MeanEstimate, middle: float) -> str:
    low, high = _x(estimate.low), _x(estimate.high)
    top, bottom = middle - 4, middle + 4
    return (
        f'<line class="whisker" x1="{low:.1f}" y1="{middle:.1f}" x2="{high:.1f}" y2="{middle:.1f}"/>'
        f'<line class="whisker" x1="{low:.1f}" y1="{top:.1f}" x2="{low:.1f}" y2="{bottom:.1f}"/>'
        f'<line class="whisker" x1="{high:.1f}" y1="{top:.1f}" x2="{high:.1f}" y2="{bottom:.1f}"/>'
    )


# --- experiment.html --------------------------------------------------------------------------
