"""`coder-eval report RUN_DIR`: show or export a finished run's report."""

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def report(
    run_dir: Annotated[Path, typer.Argument(help="Run directory (e.g. runs/latest).")],
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="md (stdout), html (task.html + run.html) or junit.")
    ] = "md",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead.")] = None,
) -> None:
    """Render a run's report as Markdown, self-contained HTML, or JUnit XML."""
    from coder_eval.common.collector import collector_paused
    from coder_eval.errors import UsageError

    if fmt not in ("md", "html", "junit"):
        raise UsageError(f"--format must be md, html or junit, not {fmt!r}")
    with collector_paused():  # bounded work over many long-lived records (see common/collector.py)
        from coder_eval.engine.report_files import render_report

        text, written, notes = render_report(run_dir, fmt, output)  # type: ignore[arg-type]
    if text is not None:
        from coder_eval.common.untrusted_text import clean_text

        # the renderer already cleans what it quotes; this pass keeps the terminal safe whatever it missed
        typer.echo(clean_text(text), nl=False)
    from coder_eval.cli.output import print_conversions

    print_conversions(notes)
    # Plain text, not Rich: these lines have no styling, and importing Rich costs about 20 ms.
    for path in written[:5]:
        typer.echo(f"wrote {path}")
    if len(written) > 5:
        typer.echo(f"... and {len(written) - 5} more")
