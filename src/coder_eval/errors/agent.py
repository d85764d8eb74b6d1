"""What can go wrong inside an agent turn, as the orchestrator sees it.

Defined here, at the bottom of the package, so that both our agents (`coder_eval.agents.errors`
re-exports them) and plugins written to the reference system's guide (which import
`coder_eval.errors.agent`) raise the same classes.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base class for agent failures."""


class AgentCrashError(AgentError):
    """The agent failed mid-turn. The partial turn is on `agent.pending_turn`."""


class TransientAgentError(AgentCrashError):
    """A failure worth retrying (rate limit, overloaded or 5xx upstream, dropped connection)."""


class TurnTimeoutError(AgentError):
    """The turn ran past its deadline; the agent was killed and the partial turn kept."""


class BudgetExceededError(AgentError):
    """The model gateway refused a call because the task's token or USD budget is spent."""

    def __init__(self, message: str, *, kind: str) -> None:
        super().__init__(message)
        self.kind = kind  # "tokens" or "usd"
