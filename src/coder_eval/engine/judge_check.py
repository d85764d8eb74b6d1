"""Before anything runs: whether each judge and the simulated user can reach a model.

A unit's agent route is checked in `route_check.py`; this module does the same for the grading
side, following the same decision the judges make at grading (`judges/routing.py`,
`judges/services.py`): under `-b direct`/`record`/`litellm` a judge on the gateway needs an
Anthropic credential the gateway can send, a judge routed to Bedrock needs
`AWS_BEARER_TOKEN_BEDROCK` and `AWS_REGION`, one routed to litellm needs the litellm extra and
its `env_params` variables, a `system_one_judge` with its own `base_url` needs its `api_key_env`.
Under `-b bedrock` every judge calls its provider itself. Scripted runs need nothing (the script
answers), and replayed runs need a credential only where a judge agent calls a provider directly.

Without this check, a missing key surfaced only at grading, after the agent had run (and been
paid for), as a judge criterion that could not grade.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from dataclasses import dataclass

from coder_eval.criteria.registry import CHECKERS
from coder_eval.engine.gateway_spec import PROVIDER_MODES
from coder_eval.gateway.providers import ProviderSet, Resolution
from coder_eval.judges.routing import judge_way
from coder_eval.models.criteria_judges import DEFAULT_JUDGE_MODEL, SystemOneJudgeCriterion
from coder_eval.models.results import JUDGE_TYPES
from coder_eval.models.task import TaskDefinition
from coder_eval.models.task_parts import ApiRouteOverride

BEDROCK_VARS = ("AWS_BEARER_TOKEN_BEDROCK", "AWS_REGION")
NO_KEY_FIX = "set it in the harness's environment (or .env), or run offline with -b script"


@dataclass(frozen=True)
class JudgeNeed:
    """One thing a judge (or the simulated user) needs from this machine to make its calls."""

    where: str
    """The task field: `success_criteria[2]` or `simulation`."""
    who: str
    """`llm_judge`, `agent_judge`, ... or `the simulated user`."""
    need: str
    """`gateway` (an Anthropic credential the gateway sends), `bedrock`, `anthropic`, `litellm`, `endpoint`."""
    model: str | None = None
    variables: tuple[str, ...] = ()


def gateway_can_send(res: Resolution) -> bool:
    """Whether the gateway holds a credential for this Anthropic resolution (or needs none)."""
    return res.key_from is not None or res.auth == "none" or res.base_from.startswith("CODER_EVAL_UPSTREAM_")


def _mode(backend: str) -> str:
    return backend if backend == "bedrock" else PROVIDER_MODES.get(backend, backend)


def _criterion_need(where: str, crit: object, kind: str, mode: str, route: ApiRouteOverride | None) -> JudgeNeed | None:
    model = getattr(crit, "model", None) or (route.model if route is not None else None) or DEFAULT_JUDGE_MODEL
    if isinstance(crit, SystemOneJudgeCriterion) and crit.base_url:
        if mode == "replay" or crit.api_key_env is None:
            return None  # replay serves it from the cassettes; a keyless endpoint needs nothing
        return JudgeNeed(where, kind, "endpoint", variables=(crit.api_key_env,))
    way = judge_way(mode, route)
    relayed = mode != "bedrock" and kind != "agent_judge" and way in ("bedrock", "litellm")
    if way == "gateway" or relayed:
        if mode == "replay":
            return None
        if way == "gateway":
            return JudgeNeed(where, kind, "gateway", model)
    if way == "litellm":
        assert route is not None
        return JudgeNeed(where, kind, "litellm", variables=tuple(route.env_params.values()))
    if way == "bedrock":
        return JudgeNeed(where, kind, "bedrock", variables=BEDROCK_VARS)
    return JudgeNeed(where, kind, "anthropic", variables=("ANTHROPIC_API_KEY",))


def judge_needs(definition: TaskDefinition, backend: str) -> list[JudgeNeed]:
    """What the task's enabled judges and simulated user need under `backend` (nothing under -b script)."""
    mode = _mode(backend)
    if mode == "script":
        return []
    route = definition.checker_context.api_route if definition.checker_context else None
    needs = []
    for i, crit in enumerate(definition.success_criteria):
        if crit.type not in JUDGE_TYPES or crit.is_disabled or crit.type not in CHECKERS:
            continue
        need = _criterion_need(f"success_criteria[{i}]", crit, crit.type, mode, route)
        if need is not None:
            needs.append(need)
    sim = definition.simulation
    if sim is not None and sim.enabled and mode != "replay":
        if mode == "bedrock":
            needs.append(JudgeNeed("simulation", "the simulated user", "bedrock", variables=BEDROCK_VARS))
        else:
            needs.append(JudgeNeed("simulation", "the simulated user", "gateway", sim.model))
    return needs


def _unset(names: tuple[str, ...]) -> list[str]:
    return [name for name in names if not os.environ.get(name)]


def need_problems(
    need: JudgeNeed, backend: str, providers: ProviderSet, env: dict[str, str]
) -> Iterator[tuple[str, str]]:
    """(message, fix) for each way this need cannot be met here."""
    head = f"{need.who} cannot reach its model under -b {backend}"
    if need.need == "gateway":
        from coder_eval.gateway.protocol import protocol
        from coder_eval.gateway.providers import resolve

        anthropic = protocol("anthropic")
        # resolved as the unit's judge routes are at run time (judge_routes.py): for the protocol
        res = resolve(providers, "anthropic", None, env, None, anthropic.upstream_var)
        if not gateway_can_send(res):
            yield (
                f"{head}: the run's gateway has no Anthropic credential for its calls "
                f"({'; '.join(res.problems) or 'no credential found'})",
                "set ANTHROPIC_API_KEY (or a provider in ~/.config/coder-eval/providers.yaml), route the judge "
                "with checker_context.api_route, or run offline with -b script",
            )
        return
    if need.need == "litellm" and importlib.util.find_spec("litellm") is None:
        yield f"{head}: route litellm needs the litellm package, which is not installed", "install the litellm extra"
    for name in _unset(need.variables):
        what = {"endpoint": "its endpoint's key", "bedrock": "Bedrock"}.get(need.need, need.need)
        yield f"{head}: {what} needs ${name}, which is not set", f"export {name}=…; {NO_KEY_FIX}"
