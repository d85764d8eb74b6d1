"""What runs on a Ray worker for one unit: the ordinary `run_unit`, then its records packed for the trip back.

Timeouts and kills are enforced here, where the agent runs: `run_unit` applies the task's limits,
and a cancelled unit (Ctrl-C or SIGTERM on the driver) kills its agent and commands before the
exception leaves the worker.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coder_eval.cluster.transfer import UnitFiles, pack_unit
from coder_eval.engine.gateway_spec import GatewaySpec
from coder_eval.engine.model_link import ModelLink
from coder_eval.engine.units import RunUnit
from coder_eval.models.results import EvaluationResult
from coder_eval.sandbox.drivers import PreservationMode


@dataclass(frozen=True)
class WorkerJob:
    """The run-wide part of every unit's job (shipped once through the object store)."""

    run_dir: Path
    run_token: str
    grade: bool
    preservation: PreservationMode | None
    gateway: GatewaySpec | None
    model_link: ModelLink | None
    """Used when there is no gateway to host (bedrock): the link travels as it is."""
    shared_run_dir: bool
    ledger: Any


@dataclass(frozen=True)
class UnitOutcome:
    result: EvaluationResult
    files: UnitFiles | None
    """None when the worker wrote straight into a shared run directory."""
    node_id: str


def _model_link(job: WorkerJob, unit: RunUnit) -> ModelLink | None:
    if job.gateway is None:
        return job.model_link
    from coder_eval.agents.registry import agent_kind

    if unit.agent.type == "none" or agent_kind(unit.agent.type).model_less:
        return None
    from coder_eval.cluster.node_gateway import NodeGatewayLink, node_gateway

    return NodeGatewayLink(node_gateway(job.gateway, job.run_token))


def run_on_worker(unit: RunUnit, job: WorkerJob, attempt: int) -> UnitOutcome:
    import ray

    from coder_eval.common.process import kill_running_commands
    from coder_eval.engine.orchestrator import RunOptions, run_unit
    from coder_eval.sandbox.task_envs import keep_across_runs

    keep_across_runs()  # this unit's run directory goes when it ends; the task's environment serves the next
    node_id = ray.get_runtime_context().get_node_id()
    job.ledger.started.remote(unit.directory(job.run_dir).as_posix(), attempt, node_id)
    local_root = None if job.shared_run_dir else Path(tempfile.mkdtemp(prefix="coder-eval-unit-"))
    run_dir = job.run_dir if local_root is None else local_root / job.run_dir.name
    options = RunOptions(
        run_dir=run_dir, grade=job.grade, preservation=job.preservation, model_link=_model_link(job, unit)
    )
    try:
        try:
            result = asyncio.run(run_unit(unit, options))
        except BaseException:
            kill_running_commands()  # pre_run/criteria commands run in threads the cancellation cannot reach
            raise
        if local_root is None:
            return UnitOutcome(result, None, node_id)
        files = pack_unit(unit.directory(run_dir), run_dir, job.run_dir)
        if result.sandbox_path is not None:
            moved = result.sandbox_path.replace(str(run_dir), str(job.run_dir))
            result = result.model_copy(update={"sandbox_path": moved})
        return UnitOutcome(result, files, node_id)
    finally:
        if local_root is not None:
            shutil.rmtree(local_root, ignore_errors=True)
