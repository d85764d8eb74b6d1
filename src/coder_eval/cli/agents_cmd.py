"""`coder-eval agents`: the agent kinds, whether each can run here; `agents install KIND...`."""

import json
from typing import Annotated

import typer

from coder_eval.agents.kind import AgentKind
from coder_eval.cli.guard import guarded

agents_app = typer.Typer(
    help="List agent kinds and where their CLIs are; install the npm ones.",
    invoke_without_command=True,
    no_args_is_help=False,
    rich_markup_mode=None,
)


@agents_app.callback()
@guarded
def agents(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
) -> None:
    """Every registered agent kind: implemented or not, its binary, version and where it was found, the
    wire protocol it speaks and the variables that can hold its credential (those set marked `*`)."""
    if ctx.invoked_subcommand is not None:
        return
    import os

    from coder_eval.agents.availability import survey
    from coder_eval.agents.registry import AGENTS

    rows = survey()
    needs = {row.kind: _needs(AGENTS.get(row.kind)) for row in rows}
    if as_json:
        out = [
            {
                **row.as_dict(),
                **needs[row.kind],
                "credentials_set": [n for n in needs[row.kind]["credentials"] if os.environ.get(n)],
            }
            for row in rows
        ]
        typer.echo(json.dumps(out, indent=2))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(
        "agent", "status", "binary", "version", "found at / how to install", "protocol", "credentials", box=None
    )
    for row in rows:  # plain Text cells: an install hint like `pip install 'coder-eval[codex]'` is no markup
        need = needs[row.kind]
        creds = " ".join(f"{n}*" if os.environ.get(n) else n for n in need["credentials"]) or "-"
        cells = (
            row.kind,
            row.status,
            row.binary or "-",
            row.version or "-",
            row.location or row.install or "-",
            ", ".join(need["protocols"]) or "-",
            creds,
        )
        table.add_row(*(Text(str(c)) for c in cells))
    Console().print(table)


def _needs(kind: AgentKind) -> dict[str, list[str]]:
    """The protocols a kind speaks and the variables that can hold its credential (none for model-less kinds)."""
    from coder_eval.engine.provider_config import credential_names

    if kind.model_less or not kind.protocols:
        return {"protocols": [], "credentials": []}
    return {"protocols": list(kind.protocols), "credentials": credential_names(kind)}


@agents_app.command("install")
@guarded
def install(
    kinds: Annotated[list[str], typer.Argument(help="Agent kinds whose pinned npm CLI to install (e.g. opencode).")],
    force: Annotated[bool, typer.Option("--force", help="Reinstall even when the pinned version is there.")] = False,
) -> None:
    """Install the pinned npm CLI of each KIND into a user-level prefix (no sudo), where runs find it."""
    from coder_eval.agents.availability import npm_package_of
    from coder_eval.agents.installs import InstallError
    from coder_eval.agents.installs import install as do_install
    from coder_eval.errors import UsageError

    try:  # every name is checked before anything is installed
        packages = [npm_package_of(kind) for kind in kinds]
    except LookupError as exc:
        raise UsageError(str(exc)) from None
    for package in packages:
        try:
            result = do_install(package, force=force)
        except InstallError as exc:
            raise UsageError(str(exc)) from None
        verb = "already installed" if result.already else "installed"
        typer.echo(f"{result.kind}: {package.spec} {verb} at {result.path}")
