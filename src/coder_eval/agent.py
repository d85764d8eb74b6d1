"""The public API for agent plugins: everything a new agent kind needs, importable from one place.

    from coder_eval.agent import Agent, BaseAgentConfig, Turn, TurnEnd, register_agent

See docs/extending.md for a complete example.
"""

from coder_eval.agents.base import Agent, ShouldStop, Turn, TurnEnd
from coder_eval.agents.collector import EventCollector
from coder_eval.agents.errors import AgentCrashError, BudgetExceededError, TransientAgentError
from coder_eval.agents.events import (
    AgentEndEvent,
    AgentStartEvent,
    AssistantMessageEvent,
    TextChunkEvent,
    ToolEndEvent,
    ToolStartEvent,
    TurnEndEvent,
    TurnStartEvent,
    UsageEvent,
)
from coder_eval.agents.kind import AgentKind, Binary, RouteAddress
from coder_eval.agents.registry import register_agent
from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.telemetry import TokenUsage, TurnRecord
from coder_eval.models.tools import ToolVocabulary
from coder_eval.sandbox.environment import Launch, SandboxEnvironment

__all__ = [
    "Agent",
    "AgentCrashError",
    "AgentEndEvent",
    "AgentKind",
    "AgentStartEvent",
    "AssistantMessageEvent",
    "BaseAgentConfig",
    "Binary",
    "BudgetExceededError",
    "EventCollector",
    "Launch",
    "RouteAddress",
    "SandboxEnvironment",
    "ShouldStop",
    "TextChunkEvent",
    "TokenUsage",
    "ToolEndEvent",
    "ToolStartEvent",
    "ToolVocabulary",
    "TransientAgentError",
    "Turn",
    "TurnEnd",
    "TurnEndEvent",
    "TurnRecord",
    "TurnStartEvent",
    "UsageEvent",
    "register_agent",
]
