"""Consoles and the one-paragraph rendering of user errors."""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from coder_eval.errors import CoderEvalError


@lru_cache(maxsize=1)
def out() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


@lru_cache(maxsize=1)
def err() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def print_error(exc: CoderEvalError) -> None:
    from rich.markup import escape

    from coder_eval.errors import TaskConfigError

    if isinstance(exc, TaskConfigError) and len(exc.problems) > 1:
        err().print(f"[bold red]Error:[/] {escape(str(exc.file))} has {len(exc.problems)} problems:")
        for problem in exc.problems:
            err().print(f"  - {escape(problem.render())}")
        return
    err().print(f"[bold red]Error:[/] {escape(str(exc))}")


def plain(text: str) -> None:
    sys.stdout.write(text)


def print_conversions(lines: list[str]) -> None:
    """On stderr: how records written in another format (the reference system's) were read."""
    if not lines:
        return
    from rich.markup import escape

    err().print("[yellow]note:[/] some records were written in another format; they were read as follows:")
    for line in lines:
        err().print(f"  - {escape(line)}")
