"""The `opencode` agent kind: the OpenCode CLI on the gateway's OpenAI Chat route.

This module only declares the kind; `agent.py` holds the implementation. The CLI is an npm
package; `coder-eval agents install opencode` puts the pinned version in a user-level prefix.
"""

from __future__ import annotations

from coder_eval.agents.installs import npm_binary
from coder_eval.agents.kind import AgentKind, NpmPackage
from coder_eval.agents.opencode.config import OpenCodeConfig
from coder_eval.agents.vocabularies import OPENCODE_TOOLS

OPENCODE_NPM = NpmPackage(kind="opencode", package="opencode-ai", version="1.18.33", bin="opencode")

OPENCODE = AgentKind(
    name="opencode",
    config=OpenCodeConfig,
    implementation="coder_eval.agents.opencode.agent:OpenCodeAgent",
    binary=npm_binary(OPENCODE_NPM),
    credentials=("OPENAI_API_KEY", "OPENROUTER_API_KEY", "AZURE_OPENAI_API_KEY", "LITELLM_AUTH_TOKEN"),
    protocols=("openai_chat",),
    gateway_env={"OPENAI_BASE_URL": "{base_url}/v1", "OPENAI_API_KEY": "{token}"},
    tools=OPENCODE_TOOLS,
    cooperative_stop=True,
)

__all__ = ["OPENCODE", "OPENCODE_NPM", "OpenCodeConfig"]
