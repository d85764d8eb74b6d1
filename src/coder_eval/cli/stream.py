"""`--stream full|minimal`: print each running task's agent events on the terminal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape

from coder_eval.agents.events import StreamCallback
from coder_eval.agents.renderers import describe
from coder_eval.engine.units import RunUnit


def stream_factory(console: Console, mode: str) -> Callable[[RunUnit], StreamCallback]:
    """A renderer per unit, prefixing each line with the task id (tasks may run in parallel)."""
    full = mode == "full"

    def for_unit(unit: RunUnit) -> StreamCallback:
        prefix = f"[dim]{escape(unit.task_id)}[/]"

        def render(event: Any) -> None:
            line = describe(event, full=full)
            if line is not None:
                console.print(f"{prefix} {escape(line)}", highlight=False)

        return render

    return for_unit
