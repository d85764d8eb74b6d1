"""`--stream full|minimal`: print each running task's agent events on the terminal.

Every line printed starts with the task id, dimmed: a line break in what the agent wrote starts a
new line behind the same prefix, never at the start of the terminal line where the harness's
own progress lines (`[1/3] ✓ …`) start. On a terminal, a line wider than the screen is cut here
into rows that each carry the prefix, so the terminal's own wrapping cannot put agent text at
the start of a row either. `describe` has already cleaned the text; Rich markup in it is
escaped here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.cells import cell_len, chop_cells
from rich.console import Console
from rich.markup import escape

from coder_eval.agents.events import StreamCallback
from coder_eval.agents.renderers import describe
from coder_eval.common.untrusted_text import clean_line
from coder_eval.engine.units import RunUnit


def stream_factory(console: Console, mode: str) -> Callable[[RunUnit], StreamCallback]:
    """A renderer per unit, prefixing each line with the task id (tasks may run in parallel)."""
    full = mode == "full"

    def for_unit(unit: RunUnit) -> StreamCallback:
        label = clean_line(unit.task_id)
        prefix = f"[dim]{escape(label)}[/]"

        def render(event: Any) -> None:
            text = describe(event, full=full)
            if text is None:
                return
            for line in text.split("\n"):
                for row in _rows(line, console, cell_len(label) + 1):
                    console.print(f"{prefix} {escape(row)}", highlight=False)

        return render

    return for_unit


def _rows(line: str, console: Console, indent: int) -> list[str]:
    """`line` as it fits behind an `indent`-cell prefix: itself, or on a terminal, its screen-wide pieces."""
    room = console.width - indent
    if not console.is_terminal or room < 20 or cell_len(line) <= room:
        return [line]
    return chop_cells(line, room)
