"""The `ray` executor: units spread over a Ray cluster, results and records brought back to the driver.

The driver stays the only writer of the run directory's run-level files. Each unit runs as a Ray
task with the resources the settings ask for; its records come back with its result (or are
written to a shared run directory) and land on disk before the unit counts as finished. A unit
whose worker or node dies is retried once on another node, then recorded ERROR with the reason.
Cancelling the run (Ctrl-C, SIGTERM) cancels the cluster work: units get a grace period to kill
their agents, then their workers are killed; whatever finished meanwhile is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from coder_eval.cluster.records import error_result
from coder_eval.cluster.settings import RaySettings, ray_missing
from coder_eval.cluster.transfer import unpack_unit
from coder_eval.cluster.worker import UnitOutcome, WorkerJob, run_on_worker
from coder_eval.errors import UsageError
from coder_eval.records.compact import HeldResults

if TYPE_CHECKING:
    from coder_eval.engine.batch import BatchObserver
    from coder_eval.engine.orchestrator import RunOptions
    from coder_eval.engine.units import RunUnit
    from coder_eval.models.results import EvaluationResult

NAMESPACE = "coder-eval"


class Ledger:
    """Where each attempt of each unit started (so a retry can go to another node)."""

    def __init__(self) -> None:
        self._where: dict[tuple[str, int], str] = {}

    def started(self, key: str, attempt: int, node_id: str) -> None:
        self._where[(key, attempt)] = node_id

    def node_of(self, key: str, attempt: int) -> str | None:
        return self._where.get((key, attempt))


def connect(settings: RaySettings) -> bool:
    """Join the cluster (or start a private local Ray); True when this call started the connection."""
    import ray

    if ray.is_initialized():
        return False
    address = settings.resolved_address
    try:
        ray.init(
            address=address or "local",  # "local": a fresh private instance, never a stale one found on disk
            namespace=NAMESPACE,
            log_to_driver=False,
            logging_level=logging.WARNING,
            configure_logging=False,
            include_dashboard=None if address else False,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address or "a local Ray instance"
        raise UsageError(f"--executor ray: cannot connect to {where}: {exc}") from None
    return True


@dataclass
class _Attempt:
    unit: RunUnit
    attempt: int
    ref: Any


@dataclass
class _Session:
    settings: RaySettings
    options: RunOptions
    observer: BatchObserver | None
    window: int
    token: str = field(default_factory=lambda: secrets.token_hex(4))
    results: HeldResults = field(default_factory=HeldResults)
    running: dict[asyncio.Future[Any], _Attempt] = field(default_factory=dict)
    ledger: Any = None
    job: Any = None

    def start(self) -> None:
        import ray

        self.ledger = ray.remote(Ledger).options(num_cpus=0).remote()
        job = WorkerJob(
            run_dir=self.options.run_dir,
            run_token=self.token,
            grade=self.options.grade,
            preservation=self.options.preservation,
            gateway=self.options.gateway_spec,
            model_link=None if self.options.gateway_spec else self.options.model_link,
            shared_run_dir=self.settings.shared_run_dir,
            ledger=self.ledger,
        )
        self.job = ray.put(job)

    def submit(self, unit: RunUnit, attempt: int, avoid: str | None = None) -> None:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        res = self.settings.resources
        options: dict[str, Any] = {
            "num_cpus": res.cpus,
            "resources": res.for_agent(unit.agent.type),
            "max_retries": 0,
        }
        if res.memory_mb:
            options["memory"] = res.memory_mb * 1024 * 1024
        if avoid is not None:
            others = [n["NodeID"] for n in alive_nodes() if n["NodeID"] != avoid]
            if others:
                target = others[hash(unit.directory(self.options.run_dir)) % len(others)]
                options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(target, soft=True)
        remote = ray.remote(run_on_worker).options(**options)
        ref = remote.remote(unit, self.job, attempt)
        future = asyncio.wrap_future(ref.future())
        self.running[future] = _Attempt(unit, attempt, ref)
        if attempt == 0 and self.observer is not None and self.observer.started:
            self.observer.started(unit)

    async def land(self, attempt: _Attempt, outcome: UnitOutcome) -> None:
        if outcome.files is not None:
            await asyncio.to_thread(unpack_unit, outcome.files, attempt.unit.directory(self.options.run_dir))
        self.finished(attempt.unit, outcome.result)

    def finished(self, unit: RunUnit, result: EvaluationResult) -> None:
        self.results.append(result)  # its compact copy: the full record is on disk
        if self.options.spend is not None:
            self.options.spend.add(result)
        if self.observer is not None and self.observer.finished:
            self.observer.finished(unit, result)

    async def failed(self, attempt: _Attempt, exc: BaseException) -> None:
        import ray

        key = attempt.unit.directory(self.options.run_dir).as_posix()
        node: str | None = None
        with contextlib.suppress(Exception):
            where = self.ledger.node_of.remote(key, attempt.attempt).future()
            node = await asyncio.wait_for(asyncio.wrap_future(where), 5)
        reason = _describe(exc, node)
        if attempt.attempt == 0 and not isinstance(exc, ray.exceptions.TaskCancelledError):
            logging.getLogger(__name__).warning("%s: %s; retrying on another node", attempt.unit.task_id, reason)
            self.submit(attempt.unit, 1, avoid=node)
            return
        result = await asyncio.to_thread(error_result, attempt.unit, self.options, f"{reason} (after one retry)")
        self.finished(attempt.unit, result)

    async def run(self, units: list[RunUnit]) -> HeldResults:
        queue = deque(units)
        spend = self.options.spend
        while (queue and (spend is None or not spend.reached)) or self.running:
            while queue and len(self.running) < self.window and (spend is None or not spend.reached):
                self.submit(queue.popleft(), 0)
            if not self.running:
                break
            done, _ = await asyncio.wait(list(self.running), return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                await self.settle(future)
        return self.results

    async def settle(self, future: asyncio.Future[Any]) -> None:
        attempt = self.running.pop(future)
        exc = future.exception()
        if exc is None:
            await self.land(attempt, future.result())
        else:
            await self.failed(attempt, exc)

    async def cancel(self) -> None:
        """Cancel every running unit; keep what finishes within the grace period, kill the rest."""
        import ray

        for attempt in self.running.values():
            with contextlib.suppress(Exception):
                ray.cancel(attempt.ref, force=False)
        if self.running:
            done, _ = await asyncio.wait(list(self.running), timeout=self.settings.cancel_grace)
            for future in done:
                attempt = self.running.pop(future)
                if future.exception() is None:
                    with contextlib.suppress(Exception):
                        await self.land(attempt, future.result())
        for attempt in self.running.values():
            with contextlib.suppress(Exception):
                ray.cancel(attempt.ref, force=True)
        self.running.clear()

    def stop_actors(self) -> None:
        import ray

        from coder_eval.cluster.node_gateway import NAMESPACE as GW_NAMESPACE
        from coder_eval.cluster.node_gateway import gateway_name

        for node in alive_nodes():
            with contextlib.suppress(Exception):
                ray.kill(ray.get_actor(gateway_name(self.token, node["NodeID"]), namespace=GW_NAMESPACE))
        with contextlib.suppress(Exception):
            ray.kill(self.ledger)


def alive_nodes() -> list[dict[str, Any]]:
    import ray

    nodes: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
    return [n for n in nodes if n.get("Alive")]


def _describe(exc: BaseException, node: str | None) -> str:
    where = f" on node {node[:12]}" if node else ""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"the unit's Ray worker failed{where}: {exc.__class__.__name__}" + (f": {first[:300]}" if first else "")


def _window(settings: RaySettings, max_parallel: int) -> int:
    """Units in flight: -j when given, else twice what the cluster's CPUs can run at once."""
    if max_parallel > 1:
        return max_parallel
    import ray

    cpus = float(ray.cluster_resources().get("CPU", 1.0))  # type: ignore[no-untyped-call]
    return max(1, int(cpus / max(settings.resources.cpus, 0.001)) * 2)


class RayExecutor:
    """Units run as Ray tasks on the cluster at `--ray-address` (or RAY_ADDRESS, or a private local Ray)."""

    name = "ray"
    hosts_gateways = True

    def __init__(self, settings: RaySettings | None = None) -> None:
        missing = ray_missing()
        if missing is not None:
            raise UsageError(missing)
        self.settings = settings or RaySettings()

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        """Stay connected across several `run` calls (the rounds of adaptive replicates): a `run`
        inside finds Ray already initialised and leaves the connection to this session."""
        import ray

        owned = await asyncio.to_thread(connect, self.settings)
        try:
            yield
        finally:
            if owned:
                ray.shutdown()

    async def run(
        self, units: list[RunUnit], options: RunOptions, *, max_parallel: int, observer: BatchObserver | None
    ) -> HeldResults:
        if not units:
            return HeldResults()
        import ray

        owned = await asyncio.to_thread(connect, self.settings)
        session = _Session(self.settings, options, observer, _window(self.settings, max_parallel))
        try:
            session.start()
            try:
                return await session.run(units)
            except BaseException:
                await asyncio.shield(session.cancel())
                raise
        finally:
            session.stop_actors()
            if owned:
                ray.shutdown()
