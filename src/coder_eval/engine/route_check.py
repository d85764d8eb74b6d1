"""Before anything runs: the route each unit's model calls will take, and what refuses a unit that has none.

`plan` prints, per task (and per unit with `-e`), the provider, the endpoint's host, the model as
it will be sent and the variable its credential comes from. A unit whose provider has no usable
credential (or no base URL, region, project or api-version) is a problem of the unit checks
(`unit_checks.py`), so `plan` and `run` refuse it alike, under the backends that reach a provider
(direct, record, bedrock, litellm). Scripted and replayed runs need no key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from coder_eval.agents.registry import AGENTS
from coder_eval.errors import Problem
from coder_eval.gateway.providers import ProviderSet, Resolution

if TYPE_CHECKING:
    from coder_eval.engine.units import RunUnit
    from coder_eval.models.experiment import ExperimentDefinition
    from coder_eval.models.task import TaskDefinition

OFFLINE = frozenset({"script", "replay"})
CLAUDE_LOGIN_SHOWN = "~/.claude/.credentials.json"


def _claude_login() -> bool:
    return (Path.home() / ".claude" / ".credentials.json").is_file()


def speaks_to_a_model(agent_type: str) -> bool:
    kind = AGENTS.find(agent_type)
    return kind is not None and bool(kind.protocols) and not kind.model_less


def _routes(model: str | None, agent_type: str, providers: ProviderSet, env: dict[str, str]) -> list[Resolution]:
    from coder_eval.engine.provider_config import unit_routes

    kind = AGENTS.find(agent_type)
    if kind is None or not kind.protocols or kind.model_less:
        return []
    return unit_routes(kind, model, providers, env)


def route_lines(
    backend: str, providers: ProviderSet, env: dict[str, str], *, model: str | None, agent_type: str
) -> tuple[list[str], list[Problem]]:
    """(`route: ...` lines, the problems that refuse the unit) for one agent kind and model."""
    if backend in OFFLINE:
        how = "answered by the task's script" if backend == "script" else "served from the cassettes"
        routes = _routes(model, agent_type, providers, env)
        return [f"route: {r.protocol} calls {how} (no provider, no key)" for r in routes], []
    lines, problems = [], []
    for res in _routes(model, agent_type, providers, env):
        lines.append(f"route: {res.describe()}")
        for text in res.problems:
            if res.provider == "anthropic" and "no credential" in text and _claude_login():
                text += (
                    f"; the Claude Code login in {CLAUDE_LOGIN_SHOWN} is a file the gateway does not read: "
                    "`claude setup-token` prints a CLAUDE_CODE_OAUTH_TOKEN it can hold instead"
                )
            problems.append(
                Problem(
                    f"agent {agent_type} cannot reach its model under -b {backend}: {text}",
                    "agent",
                    "set the variable in the harness's environment (or .env), add a provider in "
                    "~/.config/coder-eval/providers.yaml, or run offline with -b script",
                )
            )
    return lines, problems


@dataclass
class RunRoutes:
    """The run's providers and the harness's provider variables: where each unit's calls would go."""

    backend: str
    providers: ProviderSet
    env: dict[str, str] = field(repr=False)
    _seen: dict[tuple[str, str | None], tuple[list[str], list[Problem]]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, backend: str, units: list[RunUnit], experiment: ExperimentDefinition | None = None) -> RunRoutes:
        """Read providers.yaml (and the experiment's `providers:`) once for a run of these units."""
        from coder_eval.engine.provider_config import provider_environment, run_providers

        providers = run_providers(backend, experiment)
        kinds = [k for k in (AGENTS.find(t) for t in sorted({u.agent.type for u in units})) if k is not None]
        return cls(backend, providers, provider_environment(providers, kinds))

    @classmethod
    def for_units(
        cls, backend: str, units: list[RunUnit], experiment: ExperimentDefinition | None = None
    ) -> RunRoutes | None:
        """`build`, when some unit's agent or judge calls a model (else None: nothing to route)."""
        from coder_eval.engine.judge_check import judge_needs

        routed = any(speaks_to_a_model(u.agent.type) for u in units) or any(
            judge_needs(u.task.definition, backend) for u in units if not u.replicate_index
        )
        return cls.build(backend, units, experiment) if routed else None

    def judge_problems(self, definition: TaskDefinition) -> list[Problem]:
        """What refuses the task's judges and simulated user under this backend (`judge_check.py`)."""
        from coder_eval.engine.judge_check import judge_needs, need_problems

        return [
            Problem(message, need.where, fix)
            for need in judge_needs(definition, self.backend)
            for message, fix in need_problems(need, self.backend, self.providers, self.env)
        ]

    def check(self, agent_type: str, model: str | None) -> tuple[list[str], list[Problem]]:
        """The route lines and the refusals for an agent kind and model (each pair resolved once)."""
        key = (agent_type, model)
        if key not in self._seen:
            self._seen[key] = route_lines(self.backend, self.providers, self.env, model=model, agent_type=agent_type)
        return self._seen[key]
