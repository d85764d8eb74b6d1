"""Judge and simulator routes for one unit, on the run's gateway (under bedrock, judges call Bedrock).

Every judge check and the simulated user get a route of their own on the same gateway as the
agent, keyed `<variant>/<task>/<replicate>/judge-<n>` or `.../simulator`, so each is recorded,
priced, budgeted and replayed on its own; under `-b script` the route answers from the script.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coder_eval.engine.model_link import ModelLink
from coder_eval.engine.units import RunUnit
from coder_eval.judges.services import JudgeServices


def judge_services(unit: RunUnit, link: ModelLink | None, out_dir: Path) -> JudgeServices:
    """The unit's judge plumbing for whichever backend the run uses.

    The gateway's modules (and the HTTP stack under them) are imported only by a run that has a
    model link, so an agentless run does not pay for them.
    """
    definition = unit.task.definition
    route = definition.checker_context.api_route if definition.checker_context else None
    turn_timeout = definition.run_limits.turn_timeout
    common: dict[str, Any] = {
        "criteria": list(definition.success_criteria),
        "out_dir": out_dir,
        "api_route": route,
        "call_timeout": float(turn_timeout) if turn_timeout else 300.0,
    }
    if link is None:
        return JudgeServices(backend="none", **common)
    from coder_eval.engine.gateway_link import GatewayLink

    if isinstance(link, GatewayLink):
        if link.backend == "bedrock":  # judges call Bedrock themselves, as they always have under -b bedrock
            return JudgeServices(backend="bedrock", **common)
        from coder_eval.engine.judge_routes import gateway_judge_services

        return gateway_judge_services(unit, link, common)
    return JudgeServices(backend="none", **common)
