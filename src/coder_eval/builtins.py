"""The kinds shipped with Coder Eval, registered through the same entry-point hook as plugins.

Only declarations are imported here (config classes, spec models, capability records); each
implementation is a lazy "module:Class" target imported when a run first needs it.
"""

from __future__ import annotations

from typing import Any

BUILTIN_AGENTS = (
    ("claude-code", "coder_eval.agents.claude_code", "CLAUDE_CODE", "ClaudeCodeConfig"),
    ("none", "coder_eval.agents.none_agent", "NONE", "NoAgentConfig"),
    ("codex", "coder_eval.agents.codex", "CODEX", "CodexConfig"),
    ("opencode", "coder_eval.agents.opencode", "OPENCODE", "OpenCodeConfig"),
    ("pi", "coder_eval.agents.pi", "PI", "PiConfig"),
    ("antigravity", "coder_eval.agents.antigravity", "ANTIGRAVITY", "AntigravityConfig"),
)
"""(kind, declaration module, its AgentKind, its config class): each module is imported when a task names it."""


def register(_registrar: Any = None) -> None:
    """Entry point `coder_eval.plugins: coder_eval`."""
    from coder_eval.agents.registry import declare_agent_lazily
    from coder_eval.criteria.registry import declare_builtin_criterion
    from coder_eval.engine.executors import register_builtin_executors
    from coder_eval.gateway.protocol_names import register_builtin_protocols
    from coder_eval.models.criteria import BUILTIN_CRITERIA
    from coder_eval.sandbox.drivers import register_builtin_drivers

    for name, module, kind, config in BUILTIN_AGENTS:
        declare_agent_lazily(name, kind=f"{module}:{kind}", config=f"{module}:{config}")
    for spec in BUILTIN_CRITERIA:
        declare_builtin_criterion(spec)
    register_builtin_drivers()
    register_builtin_executors()
    register_builtin_protocols()
