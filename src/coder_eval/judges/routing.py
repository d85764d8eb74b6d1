"""Which way a judge's model calls go: the decision, its description for `plan`, and its spend.

The decision depends on the run's backend and `checker_context.api_route`:

| backend            | api_route unset / direct           | bedrock         | litellm (llm_judge only) |
| ------------------ | ---------------------------------- | --------------- | ------------------------ |
| script             | gateway route, answered by the script's `judges:` (api_route is not consulted) |||
| replay             | gateway route, served from cassettes | bedrock       | litellm                  |
| direct / record    | gateway route to Anthropic         | bedrock         | litellm                  |
| bedrock            | Anthropic API directly (key)       | bedrock         | litellm                  |

unset under `-b bedrock` means bedrock: the judge follows the run's backend unless told otherwise.
Where a gateway runs (direct, record, replay), a single-call judge routed to bedrock or litellm
still calls its own gateway route, which relays the call (see `engine/judge_upstream.py`); a
judge agent on bedrock, and every judge under `-b bedrock`, calls the provider itself.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Literal

from coder_eval.models.task_parts import ApiRouteOverride

Purpose = Literal["judge", "simulator"]
Way = Literal["gateway", "bedrock", "anthropic", "litellm"]


def judge_way(backend: str, api_route: ApiRouteOverride | None) -> Way:
    """How a judge's calls travel for this backend and override."""
    if backend == "script":
        return "gateway"
    route = api_route.route if api_route is not None else None
    if route == "litellm":
        return "litellm"
    if route == "bedrock" or (route is None and backend == "bedrock"):
        return "bedrock"
    return "anthropic" if backend == "bedrock" else "gateway"


def describe_judge_route(backend: str, api_route: ApiRouteOverride | None, criterion_type: str) -> str:
    """One line for `plan`: where this judge's model calls will go."""
    way = judge_way(backend, api_route)
    if criterion_type == "uipath_eval":
        return "runs the uipath CLI; needs the uipath extra, not a model route"
    who = (
        "a Claude Code judge agent in a copy of the workspace (same sandbox driver as the unit) calls"
        if criterion_type == "agent_judge"
        else "calls"
    )
    if way == "gateway":
        served = {
            "script": "answered by the task script's judges: section",
            "replay": "served from the cassettes",
            "record": "relayed to Anthropic and recorded",
        }.get(backend, "relayed to Anthropic with ANTHROPIC_API_KEY")
        return f"{who} the run's gateway on its own judge route ({served})"
    upstream = {
        "bedrock": "Bedrock (AWS_BEARER_TOKEN_BEDROCK, AWS_REGION)",
        "litellm": "litellm (the litellm extra; params/env_params from checker_context)",
    }.get(way)
    if upstream is not None and criterion_type != "agent_judge" and backend in ("direct", "record", "replay"):
        served = "served from the cassettes" if backend == "replay" else f"relayed to {upstream}"
        return f"{who} the run's gateway on its own judge route ({served})"
    if way == "bedrock":
        return f"{who} Bedrock directly (AWS_BEARER_TOKEN_BEDROCK, AWS_REGION), not through the gateway"
    if way == "anthropic":
        return f"{who} the Anthropic API directly (ANTHROPIC_API_KEY), not through the gateway"
    return f"{who} litellm (the litellm extra; params/env_params from checker_context), not through the gateway"


@dataclass
class Spend:
    """Tokens and dollars of one purpose (judge or simulator) across a unit."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unpriced: bool = False
    calls: int = 0

    def add(self, input_tokens: int, output_tokens: int, cost: float | None) -> None:
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.calls += 1
        if cost is None:
            self.unpriced = self.unpriced or input_tokens + output_tokens > 0
        else:
            self.cost_usd += cost

    @property
    def total_cost(self) -> float | None:
        """Dollars spent, or None when some call could not be priced (a floor is not a total)."""
        if self.calls == 0:
            return None
        return None if self.unpriced else self.cost_usd


@dataclass
class SpendBook:
    """Spend per purpose for one unit (judges may run from worker threads)."""

    by_purpose: dict[str, Spend] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, purpose: Purpose, input_tokens: int, output_tokens: int, cost: float | None) -> None:
        with self._lock:
            self.by_purpose.setdefault(purpose, Spend()).add(input_tokens, output_tokens, cost)

    def get(self, purpose: Purpose) -> Spend:
        with self._lock:
            return self.by_purpose.get(purpose, Spend())
