"""Records the driver writes itself for a unit that never came back from the cluster."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from coder_eval.engine.finalize import build_result
from coder_eval.engine.orchestrator import RunOptions, UnitState
from coder_eval.engine.provenance import environment_info, task_config_record
from coder_eval.engine.task_log import TaskLog
from coder_eval.engine.units import RunUnit
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus


def error_result(unit: RunUnit, options: RunOptions, reason: str) -> EvaluationResult:
    """An ERROR record (task.json and task.log) for `unit`, with `reason` as its error message."""
    out_dir = unit.directory(options.run_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    state = UnitState(unit, datetime.now(UTC), time.monotonic(), TaskLog(), env_info=environment_info())
    state.fail(FinalStatus.ERROR, reason)
    record = {**task_config_record(unit.task), "lineage": unit.lineage}
    return build_result(state, options, out_dir, record)
