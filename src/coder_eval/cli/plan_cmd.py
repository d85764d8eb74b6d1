"""`coder-eval plan`: validate tasks and the environment without running anything."""

from __future__ import annotations

from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def plan(
    paths: Annotated[
        list[str] | None, typer.Argument(help="Task files, globs or directories (default: tasks/).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only print problems.")] = False,
) -> None:
    """Validate task files: schema, paths, datasets; warn about missing CLIs and credentials."""
    # Plain click styling, not Rich: plan is run often and start-up time matters here.
    from coder_eval.engine.plan import plan as run_plan

    report = run_plan(list(paths or []))
    for f in report.files:
        if f.error is not None:
            typer.echo(typer.style("✗ ", fg="red") + str(f.path))
            for problem in f.error.problems:
                typer.echo(typer.style("    - ", fg="red") + problem.render())
            continue
        if not quiet or f.warnings:
            task = f.tasks[0]
            rows = f" ({len(f.tasks)} rows)" if task.row_id is not None else ""
            kind = task.definition.agent_type or "claude-code"
            typer.echo(
                typer.style("✓ ", fg="green") + f"{f.path}: {task.definition.task_id}{rows}, "
                f"{len(task.definition.success_criteria)} criteria, agent {kind}"
            )
        for warning in f.warnings:
            typer.echo(typer.style("    ! ", fg="yellow") + warning)
    for warning in report.environment:
        typer.echo(typer.style("warning: ", fg="yellow") + warning, err=True)
    bad = sum(not f.ok for f in report.files)
    typer.echo(f"{len(report.files) - bad} of {len(report.files)} task files valid")
    raise typer.Exit(0 if report.ok else 1)
