"""The `gemini-cli` agent kind: Google's Gemini CLI on the gateway's Gemini route.

This module only declares the kind; `agent.py` holds the implementation. The CLI is an npm
package; `coder-eval agents install gemini-cli` puts the pinned version in a user-level prefix.
"""

from __future__ import annotations

from coder_eval.agents.gemini_cli.config import GeminiCliConfig
from coder_eval.agents.installs import npm_binary
from coder_eval.agents.kind import AgentKind, NpmPackage
from coder_eval.agents.vocabularies import GEMINI_CLI_TOOLS

GEMINI_CLI_NPM = NpmPackage(kind="gemini-cli", package="@google/gemini-cli", version="0.61.0", bin="gemini")

GEMINI_CLI = AgentKind(
    name="gemini-cli",
    config=GeminiCliConfig,
    implementation="coder_eval.agents.gemini_cli.agent:GeminiCliAgent",
    binary=npm_binary(GEMINI_CLI_NPM),
    credentials=("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_ACCESS_TOKEN"),
    protocols=("gemini",),
    gateway_env={"GOOGLE_GEMINI_BASE_URL": "{base_url}", "GEMINI_API_KEY": "{token}"},
    tools=GEMINI_CLI_TOOLS,
    cooperative_stop=True,
)

__all__ = ["GEMINI_CLI", "GEMINI_CLI_NPM", "GeminiCliConfig"]
