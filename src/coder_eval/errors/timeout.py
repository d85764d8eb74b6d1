"""`TurnTimeoutError` where plugins written to the reference system's guide import it from."""

from coder_eval.errors.agent import TurnTimeoutError

__all__ = ["TurnTimeoutError"]
