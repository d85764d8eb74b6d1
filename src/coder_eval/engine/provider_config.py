"""The run's model providers: the user's providers.yaml, the experiment's `providers:`, the backend.

Read by the harness (never inside a unit): `~/.config/coder-eval/providers.yaml` (under
`$XDG_CONFIG_HOME` when set), then the experiment's section, which wins where both name the same
provider. `-b litellm` sends every protocol LiteLLM speaks to the `litellm` profile, `-b bedrock`
sends Anthropic calls to `bedrock`. The gateway gets a snapshot of only the variables the
profiles (and the agents' documented ones) name.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml
from pydantic import ValidationError

from coder_eval.agents.kind import AgentKind
from coder_eval.errors import Problem, TaskConfigError
from coder_eval.gateway.protocol_names import PROTOCOLS
from coder_eval.gateway.providers import ProviderSet, Resolution, RouteHints, resolve, user_providers_file
from coder_eval.models.experiment import ExperimentDefinition
from coder_eval.models.providers import ProvidersConfig, builtin_profiles

PROVIDER_BACKENDS = {"bedrock": ("anthropic",), "litellm": ("anthropic", "openai_chat", "openai_responses")}
"""Backends that are a provider for some protocols, in direct mode."""


def read_providers_file(path: Path) -> ProvidersConfig:
    """A providers.yaml; a missing file is an empty one, a broken one a TaskConfigError naming the field."""
    if not path.is_file():
        return ProvidersConfig()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise TaskConfigError.single(path, f"cannot read it as YAML: {exc}", "", "fix the file's syntax") from None
    try:
        return ProvidersConfig.model_validate(data)
    except ValidationError as exc:
        problems = [
            Problem(str(e["msg"]).removeprefix("Value error, "), ".".join(map(str, e["loc"])), "see docs/gateway.md")
            for e in exc.errors()
        ]
        raise TaskConfigError(path, problems) from None


def backend_defaults(backend: str) -> dict[str, str]:
    return dict.fromkeys(PROVIDER_BACKENDS.get(backend, ()), backend)


def run_providers(backend: str, experiment: ExperimentDefinition | None = None) -> ProviderSet:
    """Every profile the run's gateway knows, in the order calls match them."""
    layers = [read_providers_file(user_providers_file())]
    if experiment is not None and experiment.providers is not None:
        layers.append(experiment.providers)
    try:
        return ProviderSet.build(*layers, backend_defaults=backend_defaults(backend))
    except ValueError as exc:
        where = experiment.source_file if experiment is not None and experiment.providers else user_providers_file()
        raise TaskConfigError.single(where, str(exc), "providers", "name a profile defined there or built in") from None


def route_hints(kind: AgentKind) -> RouteHints | None:
    env = kind.provider_env
    if env is None:
        return None
    return RouteHints(env.provider, env.key_env, env.base_url_env, env.api_version_env)


def provider_environment(providers: ProviderSet, kinds: list[AgentKind] | None = None) -> dict[str, str]:
    """The harness's values of every variable the profiles, the agents and the protocols name."""
    names = providers.referenced_variables()
    for _, cls in PROTOCOLS.entries():
        names |= {cls.upstream_var, cls.api_key_var}
    for kind in kinds or []:
        hints = route_hints(kind)
        if hints is not None:
            names |= {*hints.key_env, *hints.base_url_env, *hints.api_version_env}
    return {name: os.environ[name] for name in sorted(names) if os.environ.get(name)}


def unit_routes(kind: AgentKind, model: str | None, providers: ProviderSet, env: dict[str, str]) -> list[Resolution]:
    """Where this agent's calls will go, one resolution per wire protocol it speaks."""
    out = []
    for protocol in kind.protocols:
        cls = PROTOCOLS.find(protocol)
        override = cls.upstream_var if cls is not None else None
        out.append(resolve(providers, protocol, model, env, route_hints(kind), override))
    return out


def credential_names(kind: AgentKind) -> list[str]:
    """The variables that can hold a credential for this agent's calls, across the built-in profiles."""
    names: list[str] = []
    hints = route_hints(kind)
    if hints is not None:
        names += hints.key_env
    for profile in builtin_profiles().providers.values():
        if set(profile.protocols) & set(kind.protocols):
            names += [*profile.key_env, *profile.bearer_env, *profile.oauth_env]
    return list(dict.fromkeys(names))
