"""How to build a run's model gateway, kept apart from starting one.

The local executor starts one gateway in the driver; an executor that spreads units over
machines starts one per machine from the same recipe (the recipe travels, the thread does not).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from coder_eval.errors import UsageError

if TYPE_CHECKING:
    from coder_eval.agents.kind import AgentKind
    from coder_eval.gateway.providers import ProviderSet
    from coder_eval.gateway.server import GatewayThread
    from coder_eval.models.experiment import ExperimentDefinition

BACKENDS = ("direct", "script", "record", "replay", "bedrock", "litellm")
PROVIDER_MODES = {"bedrock": "direct", "litellm": "direct"}
"""Backends that are a provider rather than a mode: the gateway relays to it (direct mode)."""


def resolve_backend(requested: str | None) -> str:
    backend = (requested or os.environ.get("API_BACKEND") or "direct").lower()
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    return backend


@dataclass(frozen=True)
class GatewaySpec:
    """Everything a gateway needs: mode, cassettes, the providers, the harness's provider variables
    (never shown) and oracle scripts."""

    backend: str
    cassettes: Path | None = None
    providers: ProviderSet | None = None
    env: dict[str, str] = field(default_factory=dict, repr=False)
    oracle: bool = False

    @property
    def mode(self) -> str:
        return PROVIDER_MODES.get(self.backend, self.backend)

    def start(self) -> GatewayThread:
        from coder_eval.gateway.server import GatewayThread

        thread = GatewayThread(
            self.mode,  # type: ignore[arg-type]
            cassette_dir=self.cassettes,
            providers=self.providers,
            env=self.env,
        )
        thread.start()
        return thread


def gateway_spec(
    backend: str,
    *,
    needs_model: bool,
    cassettes: Path | None,
    run_dir: Path,
    oracle: bool,
    experiment: ExperimentDefinition | None = None,
    kinds: list[AgentKind] | None = None,
    providers: ProviderSet | None = None,
) -> GatewaySpec | None:
    """The run's gateway recipe, or None when no unit needs a model."""
    if not needs_model:
        return None
    if backend == "record":
        cassettes = cassettes or run_dir / "cassettes"
    elif backend == "replay" and (cassettes is None or not cassettes.is_dir()):
        raise UsageError("--backend replay needs --cassettes DIR (a recorded run's cassettes directory)")
    elif backend not in ("record", "replay"):
        cassettes = None
    from coder_eval.engine.provider_config import provider_environment, run_providers

    providers = providers or run_providers(backend, experiment)
    return GatewaySpec(backend, cassettes, providers, provider_environment(providers, kinds), oracle)
