"""`coder-eval evaluate TASK WORKDIR`: grade a directory against a task, no agent."""

from __future__ import annotations

from pathlib import Path

import typer

from coder_eval.cli.guard import guarded


@guarded
def evaluate(
    task: Path = typer.Argument(..., help="Task YAML file."),
    workdir: Path = typer.Argument(..., help="Directory to grade (for example a hand-made solution)."),
    in_place: bool = typer.Option(False, "--in-place", help="Grade the directory itself instead of a copy."),
    preserve: bool = typer.Option(True, "--preserve/--no-preserve", help="Keep the graded copy under artifacts/."),
    run_dir: Path = typer.Option(None, "--run-dir", help="Run directory (default: runs/<timestamp>)."),
    row: str = typer.Option(None, "--row", help="Dataset row id, for a task with a dataset."),
) -> None:
    """Grade WORKDIR with TASK's success criteria and write task.json, task.log, run.json, run.md."""
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
        out().print(f"[red]{result.error_message}[/]", markup=True)
    out().print(f"records: {outcome.run_dir}")
    raise typer.Exit(0 if result.final_status.category == "succeeded" else 1)
