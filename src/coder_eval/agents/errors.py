"""What can go wrong inside an agent turn (the classes live in `coder_eval.errors.agent`)."""

from coder_eval.errors.agent import (
    AgentCrashError,
    AgentError,
    BudgetExceededError,
    TransientAgentError,
    TurnTimeoutError,
)

__all__ = ["AgentCrashError", "AgentError", "BudgetExceededError", "TransientAgentError", "TurnTimeoutError"]
