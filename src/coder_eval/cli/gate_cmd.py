"""`coder-eval gate RUN_DIR`: the CI verdict of a finished run (used by the GitHub Action)."""

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def gate(
    run_dir: Annotated[Path, typer.Argument(help="A finished run directory (holds run.json).")],
    minimum_task_score: Annotated[
        float | None,
        typer.Option(
            "--minimum-task-score", min=0.0, max=1.0, help="Fail when any scored task's weighted score is below this."
        ),
    ] = None,
    github_output: Annotated[
        Path | None,
        typer.Option("--github-output", envvar="GITHUB_OUTPUT", help="Append step outputs here (GitHub sets it)."),
    ] = None,
    step_summary: Annotated[
        Path | None,
        typer.Option("--step-summary", help="Append run.md and the floor's verdict to this Markdown file."),
    ] = None,
) -> None:
    """Print a run's counts, check the optional score floor, write CI outputs. Exit 1 when below the floor."""
    from rich.markup import escape

    from coder_eval.ci.gate import append_github_outputs, evaluate_gate, step_summary_text
    from coder_eval.cli.output import err, out
    from coder_eval.common.untrusted_text import clean_line

    verdict = evaluate_gate(run_dir, minimum_task_score)
    outputs = verdict.outputs(run_dir)
    if github_output is not None:
        append_github_outputs(github_output, outputs)
    if step_summary is not None:
        with step_summary.open("a", encoding="utf-8") as fh:
            fh.write(step_summary_text(run_dir, verdict))
    s = verdict.summary
    rate = outputs["pass-rate"] or "n/a"
    out().print(
        f"{s.tasks_run} run: {s.tasks_succeeded} succeeded, {s.tasks_failed} failed, "
        f"{s.tasks_error} errors; pass rate {rate}"
    )
    if not verdict.passed:
        err().print(f"[red]score floor {minimum_task_score:.3f} not met:[/]")
        for line in verdict.below_floor:
            err().print(f"  - {escape(clean_line(line))}")
        raise typer.Exit(1)
