"""`coder-eval evaluate TASK WORKDIR`: grade a directory against a task, no agent."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def evaluate(
    task: Annotated[Path, typer.Argument(help="Task YAML file.")],
    workdir: Annotated[Path, typer.Argument(help="Directory to grade (for example a hand-made solution).")],
    in_place: Annotated[bool, typer.Option("--in-place", help="Grade the directory itself instead of a copy.")] = False,
    preserve: Annotated[bool, typer.Option("--preserve/--no-preserve", help="Keep the graded copy under artifacts/.")] = True,
    run_dir: Annotated[Path | None, typer.Option("--run-dir", help="Run directory (default: runs/<timestamp>).")] = None,
    row: Annotated[str | None, typer.Option("--row", help="Dataset row id, for a task with a dataset.")] = None,
) -> None:
    """Grade WORKDIR with TASK's success criteria and write task.json, task.log, run.json, run.md."""
    from rich.markup import escape

    from coder_eval.cli.criteria_table import criteria_table
    from coder_eval.cli.output import out
    from coder_eval.engine.evaluate_cli import run_evaluate

    outcome = run_evaluate(task, workdir, run_dir=run_dir, in_place=in_place, preserve=preserve, row=row)
    result = outcome.result
    out().print(criteria_table(result))
    score = "n/a" if result.weighted_score is None else f"{result.weighted_score:.3f}"
    colour = {"succeeded": "green", "failed": "red", "error": "red", "ungraded": "yellow"}[result.final_status.category]
    out().print(f"[bold {colour}]{result.final_status.value}[/] weighted score {score}")
    if result.error_message:
        out().print(f"[red]{escape(result.error_message)}[/]")
    out().print(f"records: {escape(str(outcome.run_dir))}")
    raise typer.Exit(0 if result.final_status.category == "succeeded" else 1)
