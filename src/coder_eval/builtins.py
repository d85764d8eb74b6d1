"""The kinds shipped with Coder Eval, registered through the same entry-point hook as plugins.

Only declarations are imported here (config classes, spec models, capability records); each
implementation is a lazy "module:Class" target imported when a run first needs it.
"""

from __future__ import annotations

from typing import Any


def register(_registrar: Any = None) -> None:
    """Entry point `coder_eval.plugins: coder_eval`."""
    from coder_eval.agents.antigravity import ANTIGRAVITY
    from coder_eval.agents.claude_code import CLAUDE_CODE
    from coder_eval.agents.codex import CODEX
    from coder_eval.agents.gemini_cli import GEMINI_CLI
    from coder_eval.agents.none_agent import NONE
    from coder_eval.agents.opencode import OPENCODE
    from coder_eval.agents.pi import PI
    from coder_eval.agents.registry import declare_agent
    from coder_eval.criteria.registry import declare_builtin_criterion
    from coder_eval.engine.executors import register_builtin_executors
    from coder_eval.gateway.protocol_names import register_builtin_protocols
    from coder_eval.models.criteria import BUILTIN_CRITERIA
    from coder_eval.sandbox.drivers import register_builtin_drivers

    for kind in (CLAUDE_CODE, NONE, CODEX, OPENCODE, PI, ANTIGRAVITY, GEMINI_CLI):
        declare_agent(kind)
    for spec in BUILTIN_CRITERIA:
        declare_builtin_criterion(spec)
    register_builtin_drivers()
    register_builtin_executors()
    register_builtin_protocols()
