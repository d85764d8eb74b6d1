"""`create_agent`: an instance of a registered agent kind, ready for the engine."""

from __future__ import annotations

from typing import Any

from coder_eval.agents.base import Agent
from coder_eval.agents.reference_spi import adapt
from coder_eval.agents.registry import agent_kind
from coder_eval.models.agent import BaseAgentConfig


def create_agent(
    kind: str, config: BaseAgentConfig, *, task_id: str = "", env: dict[str, str] | None = None
) -> Agent[Any]:
    """Instantiate the registered implementation of `kind` with its matching config.

    Raises TypeError when `config` is not an instance of the kind's registered config class.
    """
    declared = agent_kind(kind)
    agent_class = declared.load()
    if agent_class is None:
        raise LookupError(f"agent type {kind!r} has no implementation in this installation")
    if not isinstance(config, declared.config):
        raise TypeError(f"agent type {kind!r} needs a {declared.config.__name__}, got {type(config).__name__}")
    if getattr(agent_class, "kind", None) is None or agent_class.kind.name != kind:
        agent_class.kind = declared
    if agent_class.reference_spi:
        return adapt(agent_class, config, task_id=task_id, env=env)
    return agent_class(config, task_id=task_id, env=env)
