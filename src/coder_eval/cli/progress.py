"""Live progress for `run`/`execute`: a Rich panel on a terminal, one plain line per task otherwise."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from coder_eval.common.untrusted_text import clean_line
from coder_eval.engine.batch import BatchObserver
from coder_eval.engine.units import RunUnit
from coder_eval.models.results import EvaluationResult


class Progress:
    """Counts done/running/passed/failed/errors, elapsed time and spend so far."""

    def __init__(self, total: int, console: Console, *, live: bool | None = None) -> None:
        self.total = total
        self.console = console
        self.live_mode = console.is_terminal if live is None else live
        self.start = time.monotonic()
        self.running = 0
        self.done = 0
        self.counts = {"succeeded": 0, "failed": 0, "error": 0, "ungraded": 0}
        self.cost = 0.0
        self._live: Live | None = None

    def set_total(self, total: int) -> None:
        self.total = total

    def observer(self) -> BatchObserver:
        return BatchObserver(started=self._started, finished=self._finished)

    def __enter__(self) -> Progress:
        if self.live_mode:
            self._live = Live(self._panel(), console=self.console, refresh_per_second=4, transient=True)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)

    def _panel(self) -> Text:
        c = self.counts
        return Text.from_markup(
            f"[bold]{self.done}/{self.total}[/] done, {self.running} running — [green]{c['succeeded']} passed[/], "
            f"[red]{c['failed']} failed[/], [magenta]{c['error']} errors[/]"
            + (f", {c['ungraded']} not graded" if c["ungraded"] else "")
            + f" — {time.monotonic() - self.start:.1f}s, ${self.cost:.4f}"
        )

    def _started(self, unit: RunUnit) -> None:
        self.running += 1
        if self._live is not None:
            self._live.update(self._panel())

    def _finished(self, unit: RunUnit, result: EvaluationResult) -> None:
        self.running -= 1
        self.done += 1
        self.counts[result.final_status.category] += 1
        self.cost += result.total_token_usage.total_cost_usd or 0.0
        score = "n/a" if result.weighted_score is None else f"{result.weighted_score:.3f}"
        rep = f" #{result.replicate_index}" if result.replicate_index else ""
        counter = f"[{self.done:>{len(str(self.total))}}/{self.total}] {result.final_status.icon} "
        task_id = clean_line(result.task_id)  # a dataset row's id may come from data nobody checked
        rest = f"{rep} {result.final_status.value} {score} {result.duration_seconds:.1f}s"
        if self._live is not None:
            self._live.console.print(counter + escape(task_id) + rest, highlight=False)
            self._live.update(self._panel())
        else:
            # A plain line (a log or a pipe): written as is, which costs a fraction of rendering it
            # through Rich for every unit of a long run.
            out = self.console.file
            out.write(f"{counter}{task_id}{rest}\n")
            out.flush()
