"""`coder-eval board [RUNS…]`: browse runs in a local web UI, or export it as a static site."""

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def board(
    runs: Annotated[
        list[Path] | None,
        typer.Argument(help="Runs directories (like runs/) or single run directories. Default: runs."),
    ] = None,
    port: Annotated[int, typer.Option("--port", "-p", help="Port to listen on; 0 picks a free one.")] = 0,
    host: Annotated[str, typer.Option("--host", help="Loopback address to bind (127.0.0.1, ::1 or localhost).")] = (
        "127.0.0.1"
    ),
    export: Annotated[
        Path | None, typer.Option("--export", help="Write a static site that opens from file:// into DIR, then exit.")
    ] = None,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the board in the default web browser.")] = False,
) -> None:
    """Serve a read-only board of runs, trajectories, trends and experiments on loopback."""
    import asyncio

    from rich.markup import escape

    from coder_eval.board.api import BoardApi
    from coder_eval.board.catalog import RunCatalog
    from coder_eval.board.security import is_loopback
    from coder_eval.cli.output import out
    from coder_eval.errors import UsageError

    sources = list(runs or [Path("runs")])
    missing = [s for s in sources if not s.is_dir()]
    if missing:
        raise UsageError(
            f"{missing[0]}: no such directory; pass a runs directory (such as runs/) or a run directory "
            "that holds run.json"
        )
    api = BoardApi(RunCatalog(sources))
    if export is not None:
        from coder_eval.board.export import export_site

        counts = export_site(api, export)
        out().print(
            f"exported {counts['runs']} run(s) to {escape(str(export))} ({counts['data']} data files, "
            f"{counts['files']} run files); open {escape(str((export / 'index.html').resolve()))}"
        )
        if counts["skipped"]:
            note = escape(str(export / "files" / "SKIPPED.txt"))
            out().print(f"[yellow]warning:[/] {counts['skipped']} file(s) over the copy caps were left out; see {note}")
        return
    if not is_loopback(host):
        raise UsageError(
            f"--host {host}: the board serves run records and agent output, so it binds loopback only; "
            "use 127.0.0.1, ::1 or localhost (forward the port over SSH to view it from elsewhere)"
        )
    from coder_eval.board.server import serve

    def ready(url: str) -> None:
        typer.echo(f"coder-eval board serving {url} (Ctrl-C to stop)", err=False)
        if open_browser:
            import webbrowser

            webbrowser.open(url)

    try:
        asyncio.run(serve(api, host, port, ready))
    except OSError as exc:
        raise UsageError(
            f"--port {port}: cannot listen on {host}:{port} ({exc.strerror or exc}); pick another port "
            "or 0 for a free one"
        ) from None
