"""Run many units with bounded parallelism; each finished unit is on disk before it is reported."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from coder_eval.common.process import kill_running_commands
from coder_eval.engine.orchestrator import RunOptions, run_unit
from coder_eval.engine.units import RunUnit
from coder_eval.models.results import EvaluationResult
from coder_eval.records.compact import HeldResults


@dataclass
class BatchObserver:
    """Callbacks for progress displays; all optional."""

    started: Callable[[RunUnit], None] | None = None
    finished: Callable[[RunUnit, EvaluationResult], None] | None = None


async def run_batch(
    units: list[RunUnit], options: RunOptions, *, max_parallel: int = 1, observer: BatchObserver | None = None
) -> HeldResults:
    """Run `units`, at most `max_parallel` at a time. Cancellation stops the rest and kills running agents."""
    observer = observer or BatchObserver()
    held = HeldResults()  # the full record is on disk; this keeps what the reports read
    queue = iter(units)  # shared by the workers: each unit is taken by exactly one of them

    async def worker() -> None:
        # a fixed set of workers rather than a task per unit: a 10,000-unit run keeps
        # `max_parallel` coroutines alive, not 10,000 waiting on a semaphore
        spend = options.spend
        while spend is None or not spend.reached:  # a spend limit stops launching; running units finish
            unit = next(queue, None)
            if unit is None:
                return
            if observer.started:
                observer.started(unit)
            result = await run_unit(unit, options)
            held.append(result)
            if spend is not None:
                spend.add(result)
            if observer.finished:
                observer.finished(unit, result)

    workers = [asyncio.create_task(worker()) for _ in range(max(1, min(max_parallel, len(units))))]
    try:
        await asyncio.gather(*workers)
    except BaseException:
        for t in workers:
            t.cancel()
        kill_running_commands()  # commands in worker threads would otherwise hold the interrupt up
        await asyncio.gather(*workers, return_exceptions=True)
        raise
    return held
