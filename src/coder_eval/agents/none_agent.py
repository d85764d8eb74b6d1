"""The `none` agent kind: no model, no process. The sandbox, pre_run and criteria still run.

This module declares the kind (cheap to import); the implementation lives in `none_impl.py`.
"""

from __future__ import annotations

from typing import Literal

from coder_eval.agents.kind import AgentKind
from coder_eval.models.agent import BaseAgentConfig


class NoAgentConfig(BaseAgentConfig):
    """No agent: the sandbox is set up, pre_run runs, criteria grade what is there."""

    type: Literal["none"] = "none"


NONE = AgentKind(
    name="none",
    config=NoAgentConfig,
    implementation="coder_eval.agents.none_impl:NoneAgent",
    model_less=True,
    cooperative_stop=True,
)
