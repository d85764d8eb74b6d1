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
    from rich.markup import escape

    from coder_eval.cli.output import err, out
    from coder_eval.engine.plan import plan as run_plan

    report = run_plan(list(paths or []))
    for f in report.files:
        if f.error is not None:
            out().print(f"[red]✗[/] {escape(str(f.path))}")
            for problem in f.error.problems:
                out().print(f"    [red]-[/] {escape(problem.render())}")
            continue
        if not quiet:
            task = f.tasks[0]
            rows = f" ({len(f.tasks)} rows)" if task.row_id is not None else ""
            kind = task.definition.agent_type or "claude-code"
            out().print(
                f"[green]✓[/] {escape(str(f.path))}: {escape(task.definition.task_id)}{rows}, "
                f"{len(task.definition.success_criteria)} criteria, agent {escape(kind)}"
            )
        for warning in f.warnings:
            out().print(f"    [yellow]![/] {escape(warning)}")
    for warning in report.environment:
        err().print(f"[yellow]warning:[/] {escape(warning)}")
    bad = sum(not f.ok for f in report.files)
    out().print(f"{len(report.files) - bad} of {len(report.files)} task files valid")
    raise typer.Exit(0 if report.ok else 1)
