"""The model gateway's public face: what the engine and tests start, open and read.

One local HTTP endpoint serves every agent of a run. The parts live one job per module:

- `service.py`: the server itself (`Gateway`): attribution, budgets, answering by mode;
- `thread.py`: `GatewayThread`, the server on its own event loop for synchronous callers;
- `routes.py`: routes, their tokens and how a request is attributed to one;
- `proxy.py`: relaying the provider's (or a cassette's) response to the agent;
- `cassettes.py`: saving, loading and rebasing recorded exchanges;
- `budget.py`: the spending rule shared with the engine; `usage.py`: token estimate and price.
"""

from __future__ import annotations

from coder_eval.gateway.budget import Budget, BudgetKind
from coder_eval.gateway.routes import CallHook, Route
from coder_eval.gateway.service import MODES, Gateway, Mode
from coder_eval.gateway.source import ReplySource
from coder_eval.gateway.thread import GatewayThread

__all__ = ["MODES", "Budget", "BudgetKind", "CallHook", "Gateway", "GatewayThread", "Mode", "ReplySource", "Route"]
