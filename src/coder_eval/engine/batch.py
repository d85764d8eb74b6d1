"""Run many units with bounded parallelism; each finished unit is on disk before it is reported."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from coder_eval.common.process import kill_running_commands
from coder_eval.engine.finalize import held_copy
from coder_eval.engine.orchestrator import RunOptions, run_unit
from coder_eval.engine.units import RunUnit
from coder_eval.models.results import EvaluationResult


@dataclass
class BatchObserver:
    """Callbacks for progress displays; all optional."""

    started: Callable[[RunUnit], None] | None = None
    finished: Callable[[RunUnit, EvaluationResult], None] | None = None


async def run_batch(
    units: list[RunUnit], options: RunOptions, *, max_parallel: int = 1, observer: BatchObserver | None = None
) -> list[EvaluationResult]:
    """Run `units`, at most `max_parallel` at a time. Cancellation stops the rest and kills running agents."""
    observer = observer or BatchObserver()
    gate = asyncio.Semaphore(max(1, max_parallel))
    results: list[EvaluationResult] = []

    async def one(unit: RunUnit) -> None:
        async with gate:
            if observer.started:
                observer.started(unit)
            result = await run_unit(unit, options)
            results.append(held_copy(result))  # the full record is on disk; keep memory per row small
            if observer.finished:
                observer.finished(unit, result)

    tasks = [asyncio.create_task(one(u)) for u in units]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        kill_running_commands()  # commands in worker threads would otherwise hold the interrupt up
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return results
