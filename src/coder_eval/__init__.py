"""Coder Eval: evaluate AI coding agents, skills and prompts with sandboxed, scored, reproducible runs."""

__version__ = "0.1.0"


def _load_plugins() -> None:
    from coder_eval.plugins import load_plugins

    load_plugins()


# The registries live at the bottom of the package and know nothing above them; the package root
# tells them how to load plugins, so the first lookup of any kind registers built-ins and plugins.
from coder_eval.models.registry import set_plugin_loader  # noqa: E402

set_plugin_loader(_load_plugins)
