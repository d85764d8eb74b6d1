"""Live progress for `run`/`execute`: a Rich progress bar on a terminal, one plain line per unit otherwise.

On a terminal the bar shows units done of the planned total, the ETA, the counts of succeeded,
failed and errored units, and below it the units running now with their arm (variant). Finished
units scroll above the bar. Without a terminal (a log, a pipe, CI) each finished unit is one
plain line. Either way a unit that did not succeed gets a second line: why (its first failed
gate, or its error, and any refused tool calls) and where its record is.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as Bar
from rich.table import Table
from rich.text import Text

from coder_eval.engine.batch import BatchObserver
from coder_eval.engine.units import RunUnit
from coder_eval.models.results import EvaluationResult
from coder_eval.reports.reasons import display_text, failure_reason

RUNNING_SHOWN = 8
"""Running units listed under the bar; more are summarised as `+N more`."""


def unit_label(unit_or_result: RunUnit | EvaluationResult) -> str:
    """`arm/task #replicate`: the arm only when the run compares arms, the replicate only past the first."""
    variant = unit_or_result.variant_id
    arm = f"{variant}/" if variant and variant != "default" else ""
    rep = unit_or_result.replicate_index
    return f"{arm}{unit_or_result.task_id}" + (f" #{rep}" if rep else "")


class Progress:
    """Counts done/running/succeeded/failed/errors, the ETA and spend so far; one line per finished unit."""

    def __init__(self, total: int, console: Console, *, live: bool | None = None) -> None:
        self.total = total
        self.console = console
        self.live_mode = console.is_terminal if live is None else live
        self.start = time.monotonic()
        self.done = 0
        self.counts = {"succeeded": 0, "failed": 0, "error": 0, "ungraded": 0}
        self.cost = 0.0
        self.run_dir: Path | None = None
        self.running: dict[int, RunUnit] = {}
        self._live: Live | None = None
        self._bar = Bar(
            TextColumn("[bold]units[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            auto_refresh=False,
        )
        self._task = self._bar.add_task("units", total=total or None, counts="")

    def set_total(self, total: int, run_dir: Path | None = None) -> None:
        self.total = total
        self.run_dir = run_dir
        self._bar.update(self._task, total=total or None)
        self._refresh()

    def observer(self) -> BatchObserver:
        return BatchObserver(started=self._started, finished=self._finished)

    def __enter__(self) -> Progress:
        if self.live_mode:
            self._live = Live(self._view(), console=self.console, refresh_per_second=4, transient=True)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)

    def counts_text(self) -> str:
        c = self.counts
        text = f"[green]{c['succeeded']} succeeded[/], [red]{c['failed']} failed[/], [magenta]{c['error']} errors[/]"
        if c["ungraded"]:
            text += f", {c['ungraded']} not graded"
        return text + f", ${self.cost:.4f}"

    def _view(self) -> RenderableType:
        self._bar.update(self._task, counts=self.counts_text())
        if not self.running:
            return self._bar
        table = Table.grid(padding=(0, 1))
        units = list(self.running.values())
        for unit in units[:RUNNING_SHOWN]:
            table.add_row(Text("  running"), Text(unit_label(unit)))
        if len(units) > RUNNING_SHOWN:
            table.add_row(Text("  "), Text(f"+{len(units) - RUNNING_SHOWN} more"))
        return Group(self._bar, table)

    def _refresh(self) -> None:
        if self._live is not None:
            self._live.update(self._view(), refresh=True)

    def _started(self, unit: RunUnit) -> None:
        self.running[id(unit)] = unit
        self._refresh()

    def _finished(self, unit: RunUnit, result: EvaluationResult) -> None:
        self.running.pop(id(unit), None)
        self.done += 1
        self.counts[result.final_status.category] += 1
        self.cost += result.total_token_usage.total_cost_usd or 0.0
        self._bar.update(self._task, completed=self.done, counts=self.counts_text())  # one update: never 8/8 beside 7
        head, why = self.lines(unit, result)
        if self._live is not None:
            self._live.update(self._view())  # printing redraws the bar: let it show this unit as done
            self._live.console.print(escape(head), highlight=False)
            if why:
                self._live.console.print(f"[dim]{escape(why)}[/]", highlight=False)
            self._refresh()
        else:
            # A plain line (a log or a pipe): written as is, which costs a fraction of rendering it
            # through Rich for every unit of a long run.
            out = self.console.file
            out.write(head + "\n" + (why + "\n" if why else ""))
            out.flush()

    def lines(self, unit: RunUnit, result: EvaluationResult) -> tuple[str, str | None]:
        """The unit's line and, unless it succeeded, the line saying why and where its record is."""
        score = "n/a" if result.weighted_score is None else f"{result.weighted_score:.3f}"
        width = len(str(self.total or self.done))
        head = (
            f"[{self.done:>{width}}/{self.total}] {result.final_status.icon} {display_text(unit_label(result), 120)} "
            f"{result.final_status.value} {score} {result.duration_seconds:.1f}s"
        )
        reason = failure_reason(result)
        if reason is None:
            return head, None
        record = f"; record {unit.directory(self.run_dir) / 'task.json'}" if self.run_dir is not None else ""
        return head, f"    why: {reason}{record}"
