"""Load agent plugins from the `coder_eval.plugins` entry-point group.

Built-in kinds travel the same path. A third-party hook that raises is logged
and skipped; a failing built-in registration is fatal.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

GROUP = "coder_eval.plugins"
_BUILTIN_NAME = "coder_eval"
_loaded = False
failed_plugins: dict[str, str] = {}


def load_plugins() -> None:
    """Import every plugin entry point once and call its register(AgentRegistry) hook."""
    global _loaded
    if _loaded:
        return
    from importlib.metadata import entry_points

    from coder_eval.agents.builtins import register_builtins
    from coder_eval.agents.registry import AgentRegistry

    register_builtins(AgentRegistry)
    for ep in entry_points(group=GROUP):
        if ep.name == _BUILTIN_NAME:
            continue
        try:
            hook = ep.load()
            hook(AgentRegistry)
        except Exception as exc:  # a broken third-party plugin must not take the CLI down
            failed_plugins[ep.name] = f"{exc.__class__.__name__}: {exc}"
            log.warning("agent plugin %r failed to load and was skipped: %s", ep.name, exc)
    _loaded = True


def ensure_plugins_loaded() -> None:
    """Safety net for library use: load plugins if nobody has yet."""
    load_plugins()
