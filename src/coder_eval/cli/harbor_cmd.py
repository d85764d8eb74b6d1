"""`coder-eval export`, `coder-eval import harbor` and `coder-eval harbor reward`: Harbor task-format interop."""

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded

import_app = typer.Typer(help="Turn other formats' tasks into Coder Eval task files.", no_args_is_help=True)
harbor_app = typer.Typer(help="Helpers for Harbor verifiers.", no_args_is_help=True)


@guarded
def export(
    task: Annotated[Path, typer.Argument(help="The task YAML file to export.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="Target format (harbor).")] = "harbor",
    output: Annotated[Path, typer.Option("--output", "-o", help="Directory the task directories go in.")] = Path(
        "harbor-tasks"
    ),
    experiment: Annotated[
        str | None, typer.Option("--experiment", "-e", help="Export every variant, replicate and row of it.")
    ] = None,
) -> None:
    """Write TASK as Harbor task directories: task.toml, instruction.md, environment/, tests/, solution/."""
    from rich.markup import escape

    from coder_eval.cli.output import out
    from coder_eval.errors import UsageError
    from coder_eval.harbor.export import export_harbor

    if fmt != "harbor":
        raise UsageError(f"--format {fmt!r} is not supported; the one export format is harbor")
    exported = export_harbor(task, output, experiment=experiment)
    for item in exported:
        out().print(f"wrote {escape(str(item.directory))} ({escape(item.task_id)}, variant {escape(item.variant_id)})")
        for note in item.not_exported:
            out().print(f"  not exported: {escape(note)}")


@import_app.command("harbor")
@guarded
def import_harbor_cmd(
    source: Annotated[Path, typer.Argument(help="A Harbor task directory, or a directory of them (any depth).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where the task directories are written.")] = Path(
        "tasks"
    ),
) -> None:
    """Turn Harbor tasks into task files: docker driver, the verifier as harbor_verifier, solve.sh as the oracle.

    Best effort over a directory: each task is imported or refused with its reason, and what the
    import does not carry is listed under it. Exit code 1 when any task was refused."""
    from rich.markup import escape

    from coder_eval.cli.output import out
    from coder_eval.harbor.importer import import_harbor

    report = import_harbor(source, output)
    for item in report.imported:
        out().print(f"imported {escape(str(item.source))} -> {escape(str(item.task_file))}")
        for loss in item.losses:
            out().print(f"  not imported: {escape(loss)}")
    for refused in report.refused:
        out().print(f"refused {escape(str(refused.source))}: {escape(refused.reason)}")
    out().print(f"{len(report.imported)} imported, {len(report.refused)} refused")
    if report.refused:
        raise typer.Exit(1)


@harbor_app.command("reward")
@guarded
def reward(
    task_json: Annotated[Path, typer.Argument(help="A graded task.json, or a run directory holding one.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where reward.json goes.")] = Path(
        "/logs/verifier/reward.json"
    ),
) -> None:
    """Write Harbor's reward.json (reward = weighted score, success, per-criterion scores) from a graded task."""
    from coder_eval.cli.output import out
    from coder_eval.harbor.reward import write_reward

    metrics = write_reward(task_json, output)
    out().print(f"reward {metrics['reward']:.3f} written to {output}")
