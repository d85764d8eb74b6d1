"""The built-in agent kinds, registered through the same entry-point hook as plugins."""

from __future__ import annotations

from coder_eval.agents.registry import AgentRegistry
from coder_eval.models.agent_configs import BUILTIN_AGENT_CONFIGS


def register_builtins(registry: type[AgentRegistry]) -> None:
    """Entry point `coder_eval.plugins: coder_eval`."""
    for kind, config_class in BUILTIN_AGENT_CONFIGS.items():
        registry.register_schema(kind, config_class)
    registry.register_lazy("none", BUILTIN_AGENT_CONFIGS["none"], "coder_eval.agents.none_agent:NoneAgent")
    registry.register_lazy(
        "claude-code", BUILTIN_AGENT_CONFIGS["claude-code"], "coder_eval.agents.claude_code:ClaudeCodeAgent"
    )
    missing = set(BUILTIN_AGENT_CONFIGS) - set(registry.kinds())
    if missing:
        raise RuntimeError(f"built-in agent kinds failed to register: {sorted(missing)}")
