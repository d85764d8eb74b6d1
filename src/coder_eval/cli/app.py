"""The `coder-eval` Typer application. Commands import their heavy dependencies lazily."""

import gc
from pathlib import Path

import typer

from coder_eval.cli import (
    agents_cmd,
    aggregate_cmd,
    board_cmd,
    evaluate_cmd,
    flaky_cmd,
    gate_cmd,
    harbor_cmd,
    init_cmd,
    lint_cmd,
    migrate_cmd,
    plan_cmd,
    report_cmd,
    run_cmd,
    schema_cmd,
    suite_import_cmd,
)

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
    verbose: bool = typer.Option(False, "--verbose", "-v", help="DEBUG logging (default level: LOG_LEVEL or INFO)."),
    log_file: Path | None = typer.Option(  # noqa: B008 - Typer declares options as defaults
        None, "--log-file", help="Also write the log to this file."
    ),
) -> None:
    """Coder Eval command line. Reads .env from the working directory (set variables win)."""
    from coder_eval.cli.env_file import load_env_file
    from coder_eval.cli.guard import guarded
    from coder_eval.cli.logging_setup import configure_logging

    load_env_file()
    guarded(configure_logging)(verbose=verbose, log_file=log_file)


app.command("init")(init_cmd.init)
app.command("run")(run_cmd.run)
app.command("execute")(run_cmd.execute)
app.command("plan")(plan_cmd.plan)
app.command("schema")(schema_cmd.schema)
app.command("evaluate")(evaluate_cmd.evaluate)
app.command("report")(report_cmd.report)
app.command("aggregate")(aggregate_cmd.aggregate)
app.command("board")(board_cmd.board)
app.command("gate")(gate_cmd.gate)
app.command("flaky")(flaky_cmd.flaky)
app.command("lint")(lint_cmd.lint)
app.command("migrate")(migrate_cmd.migrate)
app.command("export")(harbor_cmd.export)
app.add_typer(harbor_cmd.import_app, name="import")
harbor_cmd.import_app.command("plugin-eval")(suite_import_cmd.import_plugin_eval)
harbor_cmd.import_app.command("skill-evals")(suite_import_cmd.import_skill_evals)
app.add_typer(harbor_cmd.harbor_app, name="harbor")
app.add_typer(agents_cmd.agents_app, name="agents")


def main() -> None:
    try:
        app()
    finally:
        # On the way out the interpreter runs one more full collection over everything still
        # alive (every loaded record and model class): tens of milliseconds that free nothing a
        # process about to exit needs. Frozen objects are left out of it; finalizers, atexit
        # handlers and open files are unaffected.
        gc.freeze()
