"""The `claude-code` agent kind: the real Claude Code CLI through the Claude Agent SDK.

This module only declares the kind (cheap to import); the implementation in `agent.py`, which
loads the SDK, is imported when a run needs it.
"""

from __future__ import annotations

from coder_eval.agents.claude_code.config import ClaudeCodeConfig
from coder_eval.agents.claude_code.options import find_cli
from coder_eval.agents.kind import AgentKind, Binary
from coder_eval.agents.vocabularies import CLAUDE_CODE_TOOLS

CLAUDE_CODE = AgentKind(
    name="claude-code",
    config=ClaudeCodeConfig,
    implementation="coder_eval.agents.claude_code.agent:ClaudeCodeAgent",
    binary=Binary("claude", find=find_cli, install="bundled with the claude-agent-sdk wheel (pip install coder-eval)"),
    # A subscription token (`claude setup-token` prints CLAUDE_CODE_OAUTH_TOKEN) is held by the
    # gateway like a key and sent as Anthropic's API expects OAuth tokens.
    credentials=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"),
    protocols=("anthropic",),
    # The route is in the URL path; the CLI insists on some key, which the gateway ignores.
    gateway_env={"ANTHROPIC_BASE_URL": "{base_url}", "ANTHROPIC_API_KEY": "coder-eval-gateway"},
    tools=CLAUDE_CODE_TOOLS,
    cooperative_stop=True,
)

__all__ = ["CLAUDE_CODE", "ClaudeCodeConfig"]
