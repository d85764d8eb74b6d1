"""The per-criterion table printed after grading."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from coder_eval.common.untrusted_text import clean_line
from coder_eval.models.results import EvaluationResult
from coder_eval.reports.reasons import display_text

ICONS = {"pass": "[green]✓[/]", "fail": "[red]✗[/]", "info": "[blue]○[/]", "skipped": "[dim]–[/]"}
LEGEND = "✓ pass  ✗ fail  ○ informational (weight 0, never gates)  – not evaluated"


def _score(result_score: float, threshold: float, weight: float, evaluated: bool) -> str:
    if not evaluated:
        return "—"
    text = f"{result_score:.2f}/{threshold:.2f}"
    return text if weight == 1 else f"{text} ×{weight:g}"


def criteria_table(result: EvaluationResult) -> Table:
    table = Table(
        title=escape(clean_line(result.task_id)), title_justify="left", caption=LEGEND, caption_justify="left"
    )
    table.add_column("", justify="center", no_wrap=True)
    table.add_column("criterion", ratio=3)
    table.add_column("score/need", justify="right", no_wrap=True)
    table.add_column("details", ratio=4)
    for r in result.success_criteria_results:
        detail = display_text(r.error or r.details, 200)  # criterion details can quote what the agent wrote
        table.add_row(
            ICONS[r.outcome],
            f"[bold]{escape(clean_line(r.criterion_type))}[/] {escape(clean_line(r.description))}",
            _score(r.score, r.pass_threshold, r.weight, r.evaluation_status == "evaluated"),
            Text(detail),
        )
    return table
