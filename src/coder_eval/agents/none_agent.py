"""The `none` agent: no model, no process. The sandbox, pre_run and criteria still run."""

from __future__ import annotations

from typing import Literal

from coder_eval.agents.base import Agent, Turn, TurnEnd
from coder_eval.agents.kind import AgentKind
from coder_eval.models.agent import BaseAgentConfig


class NoAgentConfig(BaseAgentConfig):
    """No agent: the sandbox is set up, pre_run runs, criteria grade what is there."""

    type: Literal["none"] = "none"


class NoneAgent(Agent[NoAgentConfig]):
    """Answers every turn at once with nothing: zero tool calls, zero tokens, zero cost."""

    async def run_turn(self, turn: Turn) -> TurnEnd:
        return TurnEnd()


NONE = AgentKind(name="none", config=NoAgentConfig, implementation=NoneAgent, model_less=True, cooperative_stop=True)
