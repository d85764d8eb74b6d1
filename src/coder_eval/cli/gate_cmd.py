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
    allow_failures: Annotated[
        bool,
        typer.Option("--allow-failures", help="Do not fail on failed or errored tasks (report them only)."),
    ] = False,
    github_output: Annotated[
        Path | None,
        typer.Option("--github-output", envvar="GITHUB_OUTPUT", help="Append step outputs here (GitHub sets it)."),
    ] = None,
    step_summary: Annotated[
        Path | None,
        typer.Option("--step-summary", help="Append run.md and the floor's verdict to this Markdown file."),
    ] = None,
) -> None:
    """Print a run's counts, check its tasks and the optional score floor, write CI outputs.

    Exit 1 when any task failed or errored (unless --allow-failures; with a floor, a failed task
    passes when it scores at or above it) or any scored task is below the floor."""
    from rich.markup import escape

    from coder_eval.ci.gate import append_github_outputs, evaluate_gate, step_summary_text
    from coder_eval.cli.output import err, out
    from coder_eval.common.untrusted_text import clean_line

    verdict = evaluate_gate(run_dir, minimum_task_score, allow_failures=allow_failures)
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
    if verdict.not_succeeded:
        err().print(
            f"[red]gate failed: {len(verdict.not_succeeded)} task(s) did not succeed[/] "
            "(--allow-failures reports them only):"
        )
        for line in verdict.not_succeeded:
            err().print(f"  - {escape(clean_line(line))}")
    if verdict.below_floor:
        err().print(f"[red]score floor {minimum_task_score:.3f} not met:[/]")
        for line in verdict.below_floor:
            err().print(f"  - {escape(clean_line(line))}")
    if not verdict.passed:
        raise typer.Exit(1)
