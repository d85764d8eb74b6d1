"""Before anything runs: the route each unit's model calls will take, and refusing those that have none.

`plan` prints, per task (and per unit with `-e`), the provider, the endpoint's host, the model as
it will be sent and the variable its credential comes from; a unit whose provider has no usable
credential (or no base URL, region, project or api-version) is refused by `plan` and by `run`,
under the backends that reach a provider (direct, record, bedrock, litellm). Scripted and
replayed runs need no key.
"""

from __future__ import annotations

from pathlib import Path

from coder_eval.agents.registry import AGENTS
from coder_eval.engine.units import RunUnit
from coder_eval.errors import Problem, TaskConfigError
from coder_eval.gateway.providers import ProviderSet, Resolution
from coder_eval.models.task import TaskDefinition

OFFLINE = frozenset({"script", "replay"})
CLAUDE_LOGIN_SHOWN = "~/.claude/.credentials.json"
CLAUDE_LOGIN = Path.home() / ".claude" / ".credentials.json"


def _routes(
    task: TaskDefinition, model: str | None, agent_type: str, providers: ProviderSet, env: dict[str, str]
) -> list[Resolution]:
    from coder_eval.engine.provider_config import unit_routes

    kind = AGENTS.find(agent_type)
    if kind is None or not kind.protocols or kind.model_less:
        return []
    return unit_routes(kind, model, providers, env)


def route_lines(
    task: TaskDefinition, backend: str, providers: ProviderSet, env: dict[str, str], *, model: str | None = None,
    agent_type: str | None = None,
) -> tuple[list[str], list[Problem]]:
    """(`route: ...` lines, the problems that refuse the unit) for one task (or one unit's agent)."""
    kind_name = agent_type or task.agent_type or "claude-code"
    chosen = model if model is not None else (task.agent.model if task.agent else None)
    if backend in OFFLINE:
        routes = _routes(task, chosen, kind_name, providers, env)
        how = "answered by the task's script" if backend == "script" else "served from the cassettes"
        return [f"route: {r.protocol} calls {how} (no provider, no key)" for r in routes], []
    lines, problems = [], []
    for res in _routes(task, chosen, kind_name, providers, env):
        lines.append(f"route: {res.describe()}")
        for text in res.problems:
            if res.provider == "anthropic" and "no credential" in text and CLAUDE_LOGIN.is_file():
                text += (
                    f"; the Claude Code login in {CLAUDE_LOGIN_SHOWN} is a file the gateway does not read: "
                    "`claude setup-token` prints a CLAUDE_CODE_OAUTH_TOKEN it can hold instead"
                )
            problems.append(
                Problem(
                    f"agent {kind_name} cannot reach its model under -b {backend}: {text}",
                    "agent",
                    "set the variable in the harness's environment (or .env), add a provider in "
                    "~/.config/coder-eval/providers.yaml, or run offline with -b script",
                )
            )
    return lines, problems


def unit_refusals(
    units: list[RunUnit], backend: str, providers: ProviderSet, env: dict[str, str]
) -> list[TaskConfigError]:
    """One TaskConfigError per task file whose units cannot reach their model (nothing for offline backends)."""
    if backend in OFFLINE:
        return []
    by_file: dict[Path, list[Problem]] = {}
    for unit in units:
        definition, agent = unit.task.definition, unit.agent
        _, problems = route_lines(definition, backend, providers, env, model=agent.model, agent_type=agent.type)
        seen = by_file.setdefault(unit.task.source_file, [])
        seen += [p for p in problems if p not in seen]
    return [TaskConfigError(path, problems) for path, problems in by_file.items() if problems]
