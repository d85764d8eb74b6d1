"""The per-criterion table printed after grading."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from coder_eval.models.results import EvaluationResult

ICONS = {"pass": "[green]✓[/]", "fail": "[red]✗[/]", "info": "[blue]○[/]", "skipped": "[dim]–[/]"}
LABELS = {"pass": "pass", "fail": "fail", "info": "informational", "skipped": "not evaluated"}


def criteria_table(result: EvaluationResult) -> Table:
    table = Table(title=escape(result.task_id), title_justify="left", show_lines=False)
    for name, justify in (("", "center"), ("criterion", "left"), ("score", "right"), ("need", "right"),
                          ("weight", "right"), ("outcome", "left"), ("details", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for r in result.success_criteria_results:
        detail = r.error or r.details
        if len(detail) > 160:
            detail = detail[:157] + "..."
        table.add_row(
            ICONS[r.outcome],
            f"{escape(r.criterion_type)}: {escape(r.description)}",
            "—" if r.evaluation_status == "not_evaluated" else f"{r.score:.3f}",
            f"{r.pass_threshold:.2f}",
            f"{r.weight:g}",
            LABELS[r.outcome],
            escape(detail),
        )
    return table
