"""The `pi` agent kind: the Pi coding agent CLI on the gateway's OpenAI Chat route.

This module only declares the kind; `agent.py` holds the implementation. The CLI is an npm
package; `coder-eval agents install pi` puts the pinned version in a user-level prefix.
"""

from __future__ import annotations

from coder_eval.agents.installs import npm_binary
from coder_eval.agents.kind import AgentKind, NpmPackage
from coder_eval.agents.pi.config import PiConfig
from coder_eval.agents.vocabularies import PI_TOOLS

PI_NPM = NpmPackage(kind="pi", package="@mariozechner/pi-coding-agent", version="0.73.1", bin="pi")

PI = AgentKind(
    name="pi",
    config=PiConfig,
    implementation="coder_eval.agents.pi.agent:PiAgent",
    binary=npm_binary(PI_NPM),
    credentials=("OPENAI_API_KEY", "OPENROUTER_API_KEY", "AZURE_OPENAI_API_KEY", "LITELLM_AUTH_TOKEN"),
    protocols=("openai_chat",),
    gateway_env={"OPENAI_BASE_URL": "{base_url}/v1", "OPENAI_API_KEY": "{token}"},
    tools=PI_TOOLS,
    cooperative_stop=True,
)

__all__ = ["PI", "PI_NPM", "PiConfig"]
