"""`coder-eval init [DIR]`: a starter project that runs green offline as written.

It writes a dataset task with its scripted-model file, an experiment comparing the task without
and with a skill, that skill's plugin, and a .gitignore, then prints the commands to try. It
never overwrites: a file that already exists stops it before anything is written.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded

RENAMED = {"gitignore": ".gitignore"}
"""Starter files stored under another name in the package (a dotfile would be left out of it)."""

NEXT_STEPS = """\
Next, in {where}:
  coder-eval plan tasks/ -b script                                  # every check run applies
  coder-eval run tasks/ -b script                                   # offline, no key
  coder-eval run tasks/ -e experiments/skill-ab.yaml -b script      # without vs with the skill
  coder-eval run tasks/ -e experiments/skill-ab.yaml                # the real model (key in .env)
docs/walkthrough.md goes on from there to a verdict in CI."""


def _files(root: Traversable, prefix: str = "") -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name == "__pycache__":
            continue
        name = f"{prefix}{RENAMED.get(entry.name, entry.name)}"
        if entry.is_dir():
            out.extend(_files(entry, name + "/"))
        else:
            out.append((name, entry.read_bytes()))
    return out


def starter_files() -> list[tuple[str, bytes]]:
    """(relative path, content) of every starter file."""
    return _files(resources.files("coder_eval.resources").joinpath("starter"))


@guarded
def init(
    directory: Annotated[Path, typer.Argument(help="Where to write the starter project (default: here).")] = Path(),
) -> None:
    """Write a starter task, its script, a two-arm experiment and a skill; all run offline with -b script."""
    from coder_eval.errors import UsageError

    files = starter_files()
    clashes = [name for name, _ in files if (directory / name).exists()]
    if clashes:
        raise UsageError(
            f"{directory} already has {', '.join(clashes)}; init never overwrites: choose an empty directory "
            "(coder-eval init DIR) or move those files"
        )
    for name, content in files:
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        typer.echo(f"wrote {target}")
    typer.echo(NEXT_STEPS.format(where=directory))
