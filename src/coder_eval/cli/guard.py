"""Map exceptions to exit codes: user mistakes print one paragraph, never a traceback."""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

import typer

P = ParamSpec("P")
R = TypeVar("R")


def guarded(func: Callable[P, R]) -> Callable[P, R]:
    """Wrap a command so CoderEvalError exits with its code and a bug is labelled as one."""

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        from coder_eval.errors import CoderEvalError

        try:
            return func(*args, **kwargs)
        except CoderEvalError as exc:
            from coder_eval.cli.output import print_error

            print_error(exc)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            from coder_eval.common.interrupts import interrupt_exit_code

            raise typer.Exit(interrupt_exit_code()) from None
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except Exception as exc:
            from rich.markup import escape

            from coder_eval.cli.output import err

            if os.environ.get("CODER_EVAL_DEBUG"):
                traceback.print_exc()
            err().print(
                f"[bold red]Internal error[/] (a bug in Coder Eval, not in your input): "
                f"{exc.__class__.__name__}: {escape(str(exc))}. "
                "Set CODER_EVAL_DEBUG=1 for the traceback and please report it."
            )
            raise typer.Exit(3) from None

    return wrapper
