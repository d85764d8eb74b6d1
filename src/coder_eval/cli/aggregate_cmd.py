"""`coder-eval aggregate RUN_DIR`: rebuild run.json and run.md from the task.json files."""

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def aggregate(
    run_dir: Annotated[Path, typer.Argument(help="Run directory holding task.json files.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write run.json/run.md into this directory.")
    ] = None,
) -> None:
    """Rebuild the run summary from the finalized task records on disk."""
    from coder_eval.common.collector import collector_paused

    with collector_paused():  # bounded work over many long-lived records (see common/collector.py)
        from coder_eval.engine.report_files import aggregate as rebuild

        summary, warnings = rebuild(run_dir, output)
    if warnings:
        from rich.markup import escape

        from coder_eval.cli.output import err
        from coder_eval.common.untrusted_text import clean_line

        for warning in warnings:
            err().print(f"[yellow]warning:[/] skipped unreadable record: {escape(clean_line(warning))}")
    from coder_eval.cli.output import print_conversions

    print_conversions(summary.record_conversions)
    rate = "n/a" if summary.pass_rate is None else f"{summary.pass_rate:.1%}"
    # Plain text, not Rich: the line has no styling, and importing Rich costs about 20 ms.
    typer.echo(
        f"{summary.tasks_run} tasks: {summary.tasks_succeeded} succeeded, {summary.tasks_failed} failed, "
        f"{summary.tasks_error} errors; pass rate {rate}; wrote {(output or run_dir) / 'run.json'}"
    )
