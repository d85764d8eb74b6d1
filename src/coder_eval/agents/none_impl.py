"""The `none` agent's implementation: answers every turn at once with nothing."""

from __future__ import annotations

from coder_eval.agents.base import Agent, Turn, TurnEnd
from coder_eval.agents.none_agent import NoAgentConfig


class NoneAgent(Agent[NoAgentConfig]):
    """Answers every turn at once with nothing: zero tool calls, zero tokens, zero cost."""

    async def run_turn(self, turn: Turn) -> TurnEnd:
        return TurnEnd()
