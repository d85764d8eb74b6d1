"""The `codex` agent kind: OpenAI Codex on the gateway's OpenAI Responses route.

This module only declares the kind; `agent.py` holds the implementation, imported when a run
first needs it. The CLI comes from the `openai-codex-cli-bin` wheel (`pip install
'coder-eval[codex]'`), so no npm is needed.
"""

from __future__ import annotations

import shutil

from coder_eval.agents.codex.config import CodexConfig
from coder_eval.agents.kind import AgentKind, Binary, ProviderEnv
from coder_eval.agents.vocabularies import CODEX_TOOLS


def find_codex() -> str | None:
    """The Codex CLI pinned by the `openai-codex-cli-bin` wheel, else `codex` on PATH."""
    try:
        from codex_cli_bin import bundled_codex_path

        return str(bundled_codex_path())
    except (ImportError, FileNotFoundError):
        return shutil.which("codex")


CODEX = AgentKind(
    name="codex",
    config=CodexConfig,
    implementation="coder_eval.agents.codex.agent:CodexAgent",
    binary=Binary("codex", find=find_codex, install="pip install 'coder-eval[codex]' (the openai-codex-cli-bin wheel)"),
    credentials=("CODEX_API_KEY", "OPENAI_API_KEY"),
    # Codex's documented routing variables: its key, a custom endpoint (Azure or a gateway) and
    # Azure's api-version; the gateway reads them for calls that go to the OpenAI profile.
    provider_env=ProviderEnv(
        "openai", key_env=("CODEX_API_KEY",), base_url_env=("CODEX_BASE_URL",), api_version_env=("CODEX_API_VERSION",)
    ),
    protocols=("openai_responses",),
    # The route's token is in its URL; Codex still wants a key in the variable its provider names.
    gateway_env={"CODEX_BASE_URL": "{base_url}/v1", "CODEX_API_KEY": "{token}"},
    tools=CODEX_TOOLS,
    cooperative_stop=True,
)

__all__ = ["CODEX", "CodexConfig", "find_codex"]
