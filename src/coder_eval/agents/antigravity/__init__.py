"""The `antigravity` agent kind: Google Antigravity's local harness (Go) on the gateway's Gemini route.

This module only declares the kind; `agent.py` (which imports the SDK) is loaded when a run
needs it. The harness binary ships inside the `google-antigravity` wheel.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

from coder_eval.agents.antigravity.config import AntigravityConfig
from coder_eval.agents.kind import AgentKind, Binary
from coder_eval.agents.vocabularies import ANTIGRAVITY_TOOLS


def find_harness() -> str | None:
    """The `localharness` binary inside the installed google-antigravity wheel (without importing it)."""
    try:
        spec = importlib.util.find_spec("google.antigravity")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = Path(root) / "bin" / "localharness"
        if path.is_file():
            return str(path)
    return None


def sdk_version(_path: str) -> str | None:
    """The installed google-antigravity wheel's version (the harness binary has no --version)."""
    try:
        return f"google-antigravity {importlib.metadata.version('google-antigravity')}"
    except importlib.metadata.PackageNotFoundError:
        return None


ANTIGRAVITY = AgentKind(
    name="antigravity",
    config=AntigravityConfig,
    implementation="coder_eval.agents.antigravity.agent:AntigravityAgent",
    binary=Binary(
        "localharness", find=find_harness, install="pip install 'coder-eval[antigravity]'", version=sdk_version
    ),
    credentials=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    protocols=("gemini",),
    gateway_env={"GOOGLE_GEMINI_BASE_URL": "{base_url}", "GEMINI_API_KEY": "{token}"},
    tools=ANTIGRAVITY_TOOLS,
    cooperative_stop=True,
    loopback_harness=True,  # the SDK reaches its Go harness over a loopback WebSocket
)

__all__ = ["ANTIGRAVITY", "AntigravityConfig", "find_harness"]
