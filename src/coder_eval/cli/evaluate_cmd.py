"""`coder-eval evaluate`: grade a directory against a task (TASK WORKDIR), or re-grade a run (RUN_DIR)."""

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def evaluate(
    task: Annotated[Path, typer.Argument(help="Task YAML file, or a run directory to re-grade in place.")],
    workdir: Annotated[
        Path | None,
        typer.Argument(
            help="Directory to grade (for example a hand-made solution), or a run directory (or one unit of it) "
            "to re-grade with TASK's criteria."
        ),
    ] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Grade the directory itself instead of a copy.")] = False,
    preserve: Annotated[
        bool, typer.Option("--preserve/--no-preserve", help="Keep the graded copy under artifacts/.")
    ] = True,
    run_dir: Annotated[
        Path | None, typer.Option("--run-dir", help="Run directory (default: runs/<timestamp>).")
    ] = None,
    row: Annotated[str | None, typer.Option("--row", help="Dataset row id, for a task with a dataset.")] = None,
    driver: Annotated[
        str | None,
        typer.Option(
            "--driver",
            help="TASK WORKDIR mode: the sandbox driver the grading commands run in (default: the task's own).",
        ),
    ] = None,
    allow_recorded_commands: Annotated[
        bool,
        typer.Option("--allow-recorded-commands", help="RUN_DIR mode: allow commands taken from the records to run."),
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="DEBUG logging.")] = False,
    log_file: Annotated[Path | None, typer.Option("--log-file", help="Also write the log to this file.")] = None,
) -> None:
    """Grade WORKDIR with TASK's criteria (writes task.json, task.log, run.json, run.md).

    With a run directory alone, re-grade every recorded task in place with its recorded
    trajectory and preserved workspace, keeping the pre-grade record as task.execute.json.
    With TASK and a run directory (or a unit directory of one), re-grade the records of TASK's
    task the same way but with TASK's criteria: the operator's file, so its commands may run.
    """
    from rich.markup import escape

    from coder_eval.cli.criteria_table import criteria_table
    from coder_eval.cli.output import out
    from coder_eval.common.untrusted_text import clean_text
    from coder_eval.engine.grade_directory import run_evaluate
    from coder_eval.errors import UsageError

    if verbose or log_file:
        from coder_eval.cli.logging_setup import configure_logging

        configure_logging(verbose=verbose, log_file=log_file)
    if workdir is None:
        from coder_eval.engine.regrade_run import is_run_dir

        if not is_run_dir(task):
            raise UsageError(
                f"{task} is not a run directory (no task.json below it); to grade a directory "
                "against a task use: coder-eval evaluate TASK.yaml WORKDIR"
            )
        _regrade(task, allow_recorded_commands)
        return

    from coder_eval.engine.regrade_edited import holds_records

    if holds_records(workdir):
        if run_dir is not None or in_place:
            raise UsageError(
                f"{workdir} is a run directory: it is re-graded in place, so --run-dir and --in-place do not apply"
            )
        _regrade_with(task, workdir, row)
        return

    outcome = run_evaluate(task, workdir, run_dir=run_dir, in_place=in_place, preserve=preserve, row=row, driver=driver)
    result = outcome.result
    out().print(criteria_table(result))
    score = "n/a" if result.weighted_score is None else f"{result.weighted_score:.3f}"
    colour = {"succeeded": "green", "failed": "red", "error": "red", "ungraded": "yellow"}[result.final_status.category]
    out().print(f"[bold {colour}]{result.final_status.value}[/] weighted score {score}")
    if result.error_message:
        out().print(f"[red]{escape(clean_text(result.error_message))}[/]")
    out().print(f"records: {escape(str(outcome.run_dir))}")
    raise typer.Exit(0 if result.final_status.category == "succeeded" else 1)


def _regrade(run_dir: Path, allow: bool) -> None:
    from rich.markup import escape

    from coder_eval.cli.output import err, out
    from coder_eval.common.untrusted_text import clean_line
    from coder_eval.engine.regrade_run import regrade_run

    outcome = regrade_run(run_dir, allow_recorded_commands=allow)
    for result in outcome.graded:
        score = "n/a" if result.weighted_score is None else f"{result.weighted_score:.3f}"
        out().print(
            f"{result.final_status.icon} {escape(clean_line(result.task_id))} {result.final_status.value} {score}"
        )
    for failure in outcome.failures:
        err().print(f"[red]not graded:[/] {escape(clean_line(failure))}")
    summary = outcome.summary
    if summary is not None:
        from coder_eval.cli.output import print_conversions

        print_conversions(summary.record_conversions)
    ok = summary is not None and not outcome.failures and summary.tasks_run == summary.tasks_succeeded
    raise typer.Exit(0 if ok else 1)


def _regrade_with(task_file: Path, target: Path, row: str | None) -> None:
    from rich.markup import escape

    from coder_eval.cli.output import err, out, print_conversions
    from coder_eval.engine.regrade_edited import regrade_with_task

    outcome = regrade_with_task(task_file, target, row=row)
    for result in outcome.graded:
        score = "n/a" if result.weighted_score is None else f"{result.weighted_score:.3f}"
        where = escape(f"{result.task_id} [{result.variant_id}]")
        out().print(f"{result.final_status.icon} {where} {result.final_status.value} {score}")
    for failure in outcome.failures:
        err().print(f"[red]not graded:[/] {escape(failure)}")
    if outcome.untouched:
        others = ", ".join(f"{escape(t)} ({n})" for t, n in sorted(outcome.untouched.items()))
        err().print(f"left as they were (another task): {others}")
    if outcome.summary is not None:
        print_conversions(outcome.summary.record_conversions)
        out().print(f"rebuilt {escape(str(outcome.run_root))}/run.json")
    ok = not outcome.failures and all(r.final_status.category == "succeeded" for r in outcome.graded)
    raise typer.Exit(0 if ok else 1)
