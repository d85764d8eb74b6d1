"""What the harness knows about an agent kind, declared where the kind is registered.

`plan` and `coder-eval agents` read the binary; the gateway link reads the protocols, how the CLI
is pointed at a route and the tool vocabulary; the engine reads whether the kind needs a model at
all and whether it can stop cooperatively. Nothing about a kind lives in a side table elsewhere.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.registry import import_target
from coder_eval.models.tools import GENERIC_VOCABULARY, ToolVocabulary

if TYPE_CHECKING:
    from coder_eval.agents.base import Agent


@dataclass(frozen=True)
class NpmPackage:
    """A pinned npm CLI that `coder-eval agents install KIND` puts in a user-level prefix."""

    kind: str
    package: str
    version: str
    bin: str
    """The executable's name under the prefix's `bin/`."""

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"


@dataclass(frozen=True)
class Binary:
    """The program an agent kind runs, and how to find it on this machine."""

    name: str
    """Name shown to people (`claude`, `codex`, ...)."""
    find: Callable[[], str | None] | None = None
    """Locates it (returns a path or None); default: `name` on PATH."""
    install: str = ""
    """How to get it, in one line, for `plan` and `coder-eval agents`."""
    npm: NpmPackage | None = None
    """Set when `coder-eval agents install` can install it (a pinned npm CLI)."""
    version: Callable[[str], str | None] | None = None
    """Reports the found binary's version (given its path); default: the first line of `--version`."""

    def locate(self) -> str | None:
        return self.find() if self.find is not None else shutil.which(self.name)


@dataclass(frozen=True)
class RouteAddress:
    """Where a unit's gateway route answers: the base URL (with its token path) and the token."""

    base_url: str
    token: str


@dataclass(frozen=True)
class ProviderEnv:
    """Variables an agent documents for its own provider, which the gateway reads (the agent never does).

    `provider` names the provider profile they belong to; when a call of this agent lands there,
    these are read before the profile's own (Codex's CODEX_API_KEY before OPENAI_API_KEY).
    """

    provider: str
    key_env: tuple[str, ...] = ()
    base_url_env: tuple[str, ...] = ()
    api_version_env: tuple[str, ...] = ()


@dataclass(frozen=True)
class AgentKind:
    """One agent kind: its config schema, its implementation and its capabilities."""

    name: str
    config: type[BaseAgentConfig]
    implementation: type[Agent[Any]] | str | None = None
    """The Agent class, `"module:Class"` (imported on first use), or None (schema only here)."""
    binary: Binary | None = None
    credentials: tuple[str, ...] = ()
    """Variables holding a real provider key for `-b direct`; the gateway keeps them, the agent never sees them.
    Listed by `coder-eval agents`; which one a call uses is the provider resolution's answer."""
    provider_env: ProviderEnv | None = None
    """The agent's own documented variables for its provider (see ProviderEnv)."""
    protocols: tuple[str, ...] = ()
    """Wire protocols the agent speaks to its model (names in the gateway's protocol registry)."""
    gateway_env: Mapping[str, str] = field(default_factory=dict)
    """Variables that point the CLI at its route; values may use `{base_url}` and `{token}`."""
    tools: ToolVocabulary = GENERIC_VOCABULARY
    model_less: bool = False
    """True when the kind never calls a model (no gateway route is opened)."""
    cooperative_stop: bool = False
    """True when `communicate` honours `should_stop` between tool calls (needed for early stop)."""
    loopback_harness: bool = False
    """True when the harness process talks to its agent process over a loopback port, so both must
    share one network namespace: no docker, and bubblewrap only with `network: host`."""

    def load(self) -> type[Agent[Any]] | None:
        """The implementation class (importing it on first use), or None when only the schema is known."""
        if isinstance(self.implementation, str):
            loaded: type[Agent[Any]] = import_target(self.implementation)
            object.__setattr__(self, "implementation", loaded)
        return self.implementation if not isinstance(self.implementation, str) else None

    @property
    def has_implementation(self) -> bool:
        return self.implementation is not None

    def env_for(self, route: RouteAddress) -> dict[str, str]:
        """The variables that point this kind's CLI at `route`."""
        return {k: v.format(base_url=route.base_url, token=route.token) for k, v in self.gateway_env.items()}
