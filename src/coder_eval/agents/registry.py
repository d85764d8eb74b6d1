"""The agent registry: kind name -> AgentKind, with the `register_agent` decorator plugins use.

Registration is anti-shadow (the same declaration again is a no-op, another one for a taken kind
raises) and also binds the kind's config class in the schema registry, so a task's `agent:` block
validates against it.

`AgentRegistry` is the same registry under the name the reference system's plugin guide uses:
`AgentRegistry.register(kind, config_class)` returns the decorator, and a plugin's
`register(registry)` hook may be handed either it or our `Registrar`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from coder_eval.agents.kind import AgentKind, Binary
from coder_eval.models.agent import AGENT_CONFIGS, BaseAgentConfig
from coder_eval.models.registry import Registry
from coder_eval.models.tools import GENERIC_VOCABULARY, ToolVocabulary

A = TypeVar("A", bound=type[Any])

AGENTS: Registry[AgentKind] = Registry("agent type")


def declare_agent(kind: AgentKind) -> AgentKind:
    """Register a kind declaration (built-ins declare their implementation as a lazy "module:Class")."""
    AGENTS.add(kind.name, kind)
    AGENT_CONFIGS.add(kind.name, kind.config)
    return kind


def declare_agent_lazily(name: str, *, kind: str, config: str) -> None:
    """A built-in kind whose declaration (`"module:KIND"`) and config class load at first lookup."""
    AGENTS.add_lazy(name, kind)
    AGENT_CONFIGS.add_lazy(name, config)


def register_agent(
    name: str,
    *,
    config: type[BaseAgentConfig],
    binary: Binary | None = None,
    credentials: tuple[str, ...] = (),
    protocols: tuple[str, ...] = (),
    gateway_env: Mapping[str, str] | None = None,
    tools: ToolVocabulary = GENERIC_VOCABULARY,
    model_less: bool = False,
    cooperative_stop: bool = False,
) -> Callable[[A], A]:
    """Class decorator: register an Agent subclass as kind `name` with its declared capabilities."""

    def bind(agent_class: A) -> A:
        from coder_eval.agents.base import Agent  # only when a class is bound: start-up stays light

        if not (isinstance(agent_class, type) and issubclass(agent_class, Agent)):
            raise TypeError(f"agent type {name!r}: {agent_class!r} is not a subclass of coder_eval.agent.Agent")
        if not issubclass(config, BaseAgentConfig):
            raise TypeError(f"agent type {name!r}: {config!r} is not a subclass of BaseAgentConfig")
        kind = AgentKind(
            name=name,
            config=config,
            implementation=agent_class,
            binary=binary,
            credentials=credentials,
            protocols=protocols,
            gateway_env=dict(gateway_env or {}),
            tools=tools,
            model_less=model_less,
            cooperative_stop=cooperative_stop or declared_cooperative_stop(agent_class),
        )
        declare_agent(kind)
        agent_class.kind = kind
        return agent_class

    return bind


def declared_cooperative_stop(cls: type[Any]) -> bool:
    """A reference-style class's `supports_cooperative_stop: ClassVar[bool] = True` (our base's is a property)."""
    for klass in cls.__mro__:
        declared = vars(klass).get("supports_cooperative_stop")
        if declared is not None:
            return declared is True
    return False


class AgentRegistry:
    """The agent registry as the reference system's plugin guide names it.

    `AgentRegistry.register("my-agent", MyConfig)` returns a class decorator, so both
    `registry.register("my-agent", MyConfig)(MyAgent)` and `@AgentRegistry.register(...)` work.
    Re-registering the same pair is a no-op; claiming a taken kind otherwise raises ValueError.
    """

    @staticmethod
    def register(agent_kind: str, config_class: type[BaseAgentConfig], **capabilities: Any) -> Callable[[A], A]:
        return register_agent(agent_kind, config=config_class, **capabilities)

    @staticmethod
    def get(name: str) -> AgentKind:
        return agent_kind(name)

    @staticmethod
    def kinds() -> list[str]:
        return AGENTS.names()


def agent_kind(name: str) -> AgentKind:
    """The declaration of `name` (UnknownKindError when nobody registered it)."""
    return AGENTS.get(name)


def agent_kinds() -> list[AgentKind]:
    return [kind for _, kind in AGENTS.entries()]
