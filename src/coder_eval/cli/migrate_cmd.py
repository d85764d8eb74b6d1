"""`coder-eval migrate PATHS`: rewrite reference-system task files into today's forms."""

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def migrate(
    paths: Annotated[list[str], typer.Argument(help="Task files, globs or directories to migrate.")],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the rewritten files under this directory instead of in place."),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 when some file would change (for CI).")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No diffs, only the summary.")] = False,
) -> None:
    """Rewrite removed forms: reference.file / inline reference.code into reference.directory (the
    solution written out), legacy criterion aliases and stale keys. Shows a diff of every change;
    keeps comments, key order and layout. Exit 0 when done (or nothing to do); 1 when --check finds
    a file that would change, or when a rewritten file still does not load; 2 on bad input."""
    from coder_eval.cli.output import plain
    from coder_eval.migrate.files import plan_migration, write_migration

    results = plan_migration(list(paths), out_dir=output)
    changed = [r for r in results if r.changed]
    for result in results:
        if result.changed and not quiet:
            plain(result.diff())
        for change in result.rewrite.changes:
            typer.echo(f"{result.source}: {change}", err=True)
        for left in result.rewrite.left:
            typer.echo(typer.style("note: ", fg="yellow") + f"{result.source}: {left}", err=True)
        for problem in result.problems:
            typer.echo(typer.style("still invalid: ", fg="red") + problem, err=True)
    if not check:
        for result in changed:
            write_migration(result)
    invalid = sum(bool(r.problems) for r in changed)
    verb = "would change" if check else ("rewritten" if output is None else f"written under {output}")
    typer.echo(
        f"{len(changed)} of {len(results)} task files {verb}" + (f"; {invalid} still do not load" if invalid else ""),
        err=True,
    )
    raise typer.Exit(1 if (check and changed) or invalid else 0)
