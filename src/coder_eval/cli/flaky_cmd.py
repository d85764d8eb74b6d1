"""`coder-eval flaky RUN_DIR...`: tasks whose outcome flips across replicates and runs, with the evidence."""

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def flaky(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (their task.json records are pooled).")],
    show_all: Annotated[bool, typer.Option("--all", help="List stable tasks too.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print every task's stability as JSON.")] = False,
) -> None:
    """List tasks whose outcome differs between replicates or runs: stability, strips, criteria that flip.

    A task is grouped by (task id, variant) over every run given; runs of the same configuration
    are what make the comparison fair. Exit 0 (the listing is information, not a gate)."""
    from coder_eval.errors import UsageError
    from coder_eval.experiments.flaky import stability_lines, task_stability
    from coder_eval.records.store import read_task_results

    runs = []
    names = [d.name for d in run_dirs]
    for run_dir in run_dirs:
        if not run_dir.is_dir():
            raise UsageError(f"{run_dir} is not a run directory; give the directories of earlier runs")
        results, warnings = read_task_results(run_dir)
        for warning in warnings:
            typer.echo(f"warning: skipped unreadable record: {warning}", err=True)
        label = run_dir.name if names.count(run_dir.name) == 1 else str(run_dir)  # two runs named alike
        runs.append((label, results))
    tasks = task_stability(runs)
    if as_json:
        rows = [{**asdict(t), "flaky": t.flaky, "stability": t.stability} for t in tasks]
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for line in stability_lines(tasks, show_all=show_all):
        typer.echo(line)
