"""The `coder-eval` Typer application. Commands import their heavy dependencies lazily."""

from __future__ import annotations

import typer

from coder_eval.cli import aggregate_cmd, board_cmd, evaluate_cmd, plan_cmd, report_cmd, run_cmd, schema_cmd

app = typer.Typer(
    name="coder-eval",
    help="Evaluate AI coding agents, skills and prompts: sandboxed runs, weighted criteria, reports.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: rich help rendering imports ~80 ms of modules
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from coder_eval import __version__

        typer.echo(f"coder-eval {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """Coder Eval command line."""


app.command("run")(run_cmd.run)
app.command("execute")(run_cmd.execute)
app.command("plan")(plan_cmd.plan)
app.command("schema")(schema_cmd.schema)
app.command("evaluate")(evaluate_cmd.evaluate)
app.command("report")(report_cmd.report)
app.command("aggregate")(aggregate_cmd.aggregate)
app.command("board")(board_cmd.board)


def main() -> None:
    app()
