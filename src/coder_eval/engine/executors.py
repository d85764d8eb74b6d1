"""Executors: where a run's units execute. The engine hands units over and gets results back as they finish.

`local` (the default) runs them in this process with bounded parallelism. Another executor (for
example one that spreads units over a cluster) registers under its own name with
`register_executor`; the driver process stays the only writer of `run.json` whichever one runs.

A run with adaptive replicates calls `run` once per round. An executor with costly set-up may
offer `session()`, an async context manager the engine holds around all the rounds
(engine/adaptive.py: `executor_session`); the Ray executor stays connected through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol, TypeVar

from coder_eval.errors import UsageError
from coder_eval.models.registry import Registry, UnknownKindError

if TYPE_CHECKING:  # the registry is declared by the built-in hook at start-up: keep this import light
    from coder_eval.engine.batch import BatchObserver
    from coder_eval.engine.orchestrator import RunOptions
    from coder_eval.engine.units import RunUnit
    from coder_eval.models.results import EvaluationResult
    from coder_eval.records.compact import HeldResults


class Executor(Protocol):
    name: str
    hosts_gateways: bool
    """True when the executor starts its own model gateways (from `RunOptions.gateway_spec`) where units run."""

    async def run(
        self, units: list[RunUnit], options: RunOptions, *, max_parallel: int, observer: BatchObserver | None
    ) -> Iterable[EvaluationResult]:
        """Run every unit (each writes its own records) and return their results.

        A list of results or compact copies (`records.compact.report_copy`) will do; `HeldResults`
        keeps them out of memory until the run's end (the built-in executors return one)."""
        ...


E = TypeVar("E", bound=type)

EXECUTORS: Registry[type] = Registry("executor")


def register_executor(name: str) -> Callable[[E], E]:
    def bind(cls: E) -> E:
        EXECUTORS.add(name, cls)
        return cls

    return bind


def register_builtin_executors() -> None:
    EXECUTORS.add_lazy("local", "coder_eval.engine.executors:LocalExecutor")
    EXECUTORS.add_lazy("ray", "coder_eval.cluster.executor:RayExecutor")


def get_executor(name: str, settings: object | None = None) -> Executor:
    """The executor registered as `name` (built with `settings` when given); an unknown name is a usage error."""
    try:
        cls = EXECUTORS.get(name)
    except UnknownKindError as exc:
        raise UsageError(str(exc)) from None
    executor: Executor = cls() if settings is None else cls(settings)
    return executor


class LocalExecutor:
    """Units run in this process: at most `max_parallel` at a time on one event loop."""

    name = "local"
    hosts_gateways = False

    async def run(
        self, units: list[RunUnit], options: RunOptions, *, max_parallel: int, observer: BatchObserver | None
    ) -> HeldResults:
        from coder_eval.engine.batch import run_batch

        return await run_batch(units, options, max_parallel=max_parallel, observer=observer)
