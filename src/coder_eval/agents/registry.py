"""AgentRegistry: binds an agent `type` string to its config class and implementation.

Registration is anti-shadow: binding the same pair again is a no-op, claiming a
taken type with anything else raises, so plugin load order can never silently
swap one agent for another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from coder_eval.models.agent import BaseAgentConfig, register_agent_config, registered_agent_kinds

T = TypeVar("T", bound=type[Any])


def _target(agent_class: type[Any]) -> str:
    """The "module:Class" name register_lazy would use for `agent_class`."""
    return f"{agent_class.__module__}:{agent_class.__qualname__}"


class AgentRegistry:
    """Class-level registry of agent kinds (the plugin hook receives the class itself)."""

    _agents: ClassVar[dict[str, type[Any]]] = {}
    _lazy: ClassVar[dict[str, str]] = {}

    @classmethod
    def register(cls, kind: str, config_class: type[BaseAgentConfig]) -> Callable[[T], T]:
        """Decorator binding `kind` to an agent class and its config class."""

        def bind(agent_class: T) -> T:
            existing = cls._agents.get(kind)
            if existing is not None and existing is not agent_class:
                raise ValueError(
                    f"agent type {kind!r} is already provided by {existing.__qualname__}; "
                    f"{agent_class.__qualname__} cannot replace it"
                )
            lazy = cls._lazy.get(kind)
            if lazy is not None and lazy != _target(agent_class):
                # Not yet imported, but taken: the first agent_class() call would silently swap it back.
                raise ValueError(
                    f"agent type {kind!r} is already provided by {lazy}; {_target(agent_class)} cannot replace it"
                )
            register_agent_config(kind, config_class)
            cls._lazy.pop(kind, None)
            cls._agents[kind] = agent_class
            return agent_class

        return bind

    @classmethod
    def register_lazy(cls, kind: str, config_class: type[BaseAgentConfig], target: str) -> None:
        """Bind `kind` to an implementation named "module:Class", imported on first use.

        Commands that only validate tasks never pay for importing agent code.
        """
        register_agent_config(kind, config_class)
        existing = cls._lazy.get(kind)
        resolved = cls._agents.get(kind)
        if (existing is not None and existing != target) or (resolved is not None and _target(resolved) != target):
            raise ValueError(f"agent type {kind!r} already has an implementation")
        if resolved is None:  # the same pair again, after it was imported, stays a no-op
            cls._lazy[kind] = target

    @classmethod
    def register_schema(cls, kind: str, config_class: type[BaseAgentConfig]) -> None:
        """Declare a kind's config schema before (or without) an implementation in this install."""
        register_agent_config(kind, config_class)

    @classmethod
    def agent_class(cls, kind: str) -> type[Any] | None:
        """The implementation of `kind`, or None when only its schema is known here."""
        target = cls._lazy.pop(kind, None)
        if target is not None:
            import importlib

            module, _, name = target.partition(":")
            cls._agents[kind] = getattr(importlib.import_module(module), name)
        return cls._agents.get(kind)

    @classmethod
    def has_implementation(cls, kind: str) -> bool:
        return kind in cls._agents or kind in cls._lazy

    @classmethod
    def kinds(cls) -> list[str]:
        return registered_agent_kinds()
