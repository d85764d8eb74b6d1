"""Load plugins from the `coder_eval.plugins` entry-point group, once, when a registry first needs them.

Built-in kinds travel the same path (entry point `coder_eval`). Each hook is called with a
`Registrar`, whose methods are the public registration functions; a hook may equally just import
modules whose decorators register. A third-party hook that raises is logged and skipped; a
failing built-in registration is fatal.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

GROUP = "coder_eval.plugins"
_BUILTIN_NAME = "coder_eval"
_loaded = False
failed_plugins: dict[str, str] = {}


class Registrar:
    """What a plugin's `register(registrar)` hook receives: one method per kind of thing it can add."""

    @staticmethod
    def register(kind: str, config: Any, **capabilities: Any) -> Any:
        """An agent kind (decorator): `registrar.register("my-agent", MyConfig)(MyAgent)`."""
        from coder_eval.agents.registry import register_agent

        return register_agent(kind, config=config, **capabilities)

    agent = register

    @staticmethod
    def criterion(criterion_type: str, *, spec: Any) -> Any:
        from coder_eval.criteria.registry import register_criterion

        return register_criterion(criterion_type, spec=spec)

    @staticmethod
    def driver(name: str) -> Any:
        from coder_eval.sandbox.drivers import register_driver

        return register_driver(name)

    @staticmethod
    def pricing(rates: dict[str, Any]) -> None:
        from coder_eval.pricing import register_pricing

        register_pricing(rates)


def load_plugins() -> None:
    """Register the built-in kinds, then import every plugin entry point and call its hook."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from importlib.metadata import entry_points

    from coder_eval.builtins import register as register_builtins

    registrar = Registrar()
    register_builtins(registrar)
    for ep in entry_points(group=GROUP):
        if ep.name == _BUILTIN_NAME:
            continue
        try:
            hook = ep.load()
            hook(registrar)
        except Exception as exc:  # a broken third-party plugin must not take the CLI down
            failed_plugins[ep.name] = f"{exc.__class__.__name__}: {exc}"
            log.warning("plugin %r failed to load and was skipped: %s", ep.name, exc)
