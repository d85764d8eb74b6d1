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
    from coder_eval.gateway.server import GatewayThread

BACKENDS = ("direct", "script", "record", "replay", "bedrock")


def resolve_backend(requested: str | None) -> str:
    backend = (requested or os.environ.get("API_BACKEND") or "direct").lower()
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    return backend


@dataclass(frozen=True)
class GatewaySpec:
    """Everything a gateway needs: mode, cassettes, upstream URLs, the real keys (never shown) and oracle scripts."""

    backend: str
    cassettes: Path | None = None
    upstreams: dict[str, str] = field(default_factory=dict)
    api_keys: dict[str, str] = field(default_factory=dict, repr=False)
    oracle: bool = False

    def start(self) -> GatewayThread:
        from coder_eval.gateway.server import GatewayThread

        thread = GatewayThread(
            self.backend,  # type: ignore[arg-type]
            cassette_dir=self.cassettes,
            api_keys=self.api_keys,
            upstreams=self.upstreams,
        )
        thread.start()
        return thread


def gateway_spec(
    backend: str, *, needs_model: bool, cassettes: Path | None, run_dir: Path, oracle: bool
) -> GatewaySpec | None:
    """The run's gateway recipe, or None when no unit needs a model or the backend bypasses it (bedrock)."""
    if backend == "bedrock" or not needs_model:
        return None
    if backend == "record":
        cassettes = cassettes or run_dir / "cassettes"
    elif backend == "replay" and (cassettes is None or not cassettes.is_dir()):
        raise UsageError("--backend replay needs --cassettes DIR (a recorded run's cassettes directory)")
    elif backend not in ("record", "replay"):
        cassettes = None
    from coder_eval.engine.gateway_link import real_api_keys
    from coder_eval.gateway.protocol_names import PROTOCOLS

    upstreams = {name: url for name, cls in PROTOCOLS.entries() if (url := os.environ.get(cls.upstream_var))}
    return GatewaySpec(backend, cassettes, upstreams, real_api_keys(), oracle)
