"""One budget rule for the gateway and the engine: a unit that has spent exactly its cap has exhausted it."""

from __future__ import annotations

import anthropic
import pytest

from coder_eval.engine.agent_phase import budget_breach
from coder_eval.gateway.budget import Budget
from coder_eval.gateway.server import GatewayThread
from coder_eval.gateway.types import ModelReply, ModelRequest, Usage
from coder_eval.models.task_parts import RunLimits
from coder_eval.models.telemetry import TokenUsage, TurnRecord

pytestmark = pytest.mark.timeout(60)

PROMPT = [{"role": "user", "content": "go"}]


class FixedUsage:
    """Answers every call with text that used exactly `input` + `output` tokens."""

    def __init__(self, input_tokens: int, output_tokens: int) -> None:
        self.usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)

    async def reply(self, request: ModelRequest) -> ModelReply:
        return ModelReply(text="ok", usage=self.usage, model="scripted")


def turn(input_tokens: int, output_tokens: int, cost: float | None = 0.0) -> TurnRecord:
    usage = TokenUsage(uncached_input_tokens=input_tokens, output_tokens=output_tokens, total_cost_usd=cost)
    return TurnRecord(iteration=1, token_usage=usage)


def test_a_unit_spending_exactly_its_cap_is_refused_by_the_gateway_and_marked_by_the_engine() -> None:
    limits = RunLimits(max_total_tokens=10)
    budget = Budget.of(limits)
    assert budget == Budget(max_total_tokens=10)
    with GatewayThread("script") as gateway:
        route = gateway.open_route("unit", source=FixedUsage(7, 3), budget=budget)
        client = anthropic.Anthropic(base_url=route.base_url, api_key="dummy", max_retries=0, timeout=10.0)
        client.messages.create(model="m", max_tokens=5, messages=PROMPT)  # spends exactly 10 of 10
        with pytest.raises(anthropic.BadRequestError, match="budget exceeded: total tokens 10 of 10 spent"):
            client.messages.create(model="m", max_tokens=5, messages=PROMPT)
        assert route.budget_exceeded == "tokens"
        spent = route.calls[0].token_usage
    assert spent.total_tokens == 10
    breach = budget_breach(limits, [turn(spent.uncached_input_tokens, spent.output_tokens)])
    assert breach == ("token_budget", "budget exceeded: total tokens 10 of 10 spent")


def test_one_token_under_the_cap_is_neither_refused_nor_marked() -> None:
    limits = RunLimits(max_input_tokens=8)
    with GatewayThread("script") as gateway:
        route = gateway.open_route("unit", source=FixedUsage(7, 3), budget=Budget.of(limits))
        client = anthropic.Anthropic(base_url=route.base_url, api_key="dummy", max_retries=0, timeout=10.0)
        for _ in range(2):  # 7 input tokens spent before the second call: still under 8, so it is served
            client.messages.create(model="m", max_tokens=5, messages=PROMPT)
        assert route.budget_exceeded is None
    assert budget_breach(limits, [turn(7, 3)]) is None
    over = ("token_budget", "budget exceeded: input tokens 14 of 8 spent")
    assert budget_breach(limits, [turn(7, 3), turn(7, 3)]) == over


def test_usd_cap_reached_exactly_and_unpriced_spend() -> None:
    limits = RunLimits(max_usd=0.5)
    assert budget_breach(limits, [turn(1, 1, cost=0.25), turn(1, 1, cost=0.25)]) == (
        "cost_budget",
        "budget exceeded: $0.500000 of $0.500000 spent",
    )
    assert budget_breach(limits, [turn(1, 1, cost=0.25)]) is None
    assert budget_breach(limits, [turn(1, 1, cost=None), turn(1, 1, cost=9.0)]) is None  # unpriced: not enforceable
    assert Budget(max_usd=0.5).exceeded(TokenUsage(), 0.5) == ("usd", "$0.500000 of $0.500000 spent")


def test_no_spending_limit_is_no_budget() -> None:
    assert Budget.of(RunLimits(max_turns=3)) is None
    assert budget_breach(RunLimits(), [turn(10**6, 10**6, cost=100.0)]) is None


class CachedUsage:
    """Answers with a little uncached input and a large prompt-cache read and write."""

    async def reply(self, request: ModelRequest) -> ModelReply:
        usage = Usage(input_tokens=5, output_tokens=1, cache_read_input_tokens=500, cache_creation_input_tokens=300)
        return ModelReply(text="ok", usage=usage, model="scripted")


CACHED = TokenUsage(
    uncached_input_tokens=5, output_tokens=1, cache_read_input_tokens=500, cache_creation_input_tokens=300
)


@pytest.mark.parametrize(
    ("flags", "counted"),
    [
        ({}, 5),
        ({"count_cached_input": True}, 505),
        ({"count_cache_creation": True}, 305),
        ({"count_cached_input": True, "count_cache_creation": True}, 805),
    ],
)
def test_cache_buckets_count_toward_token_limits_only_when_the_task_says_so(flags: dict[str, bool], counted: int):
    budget = Budget.of(RunLimits(max_input_tokens=100, **flags))
    assert budget is not None and budget.counted_input(CACHED) == counted
    breach = budget.exceeded(CACHED, None)
    assert (breach is None) == (counted < 100)
    total = Budget.of(RunLimits(max_total_tokens=counted + 1, **flags))
    assert total is not None and total.exceeded(CACHED, None) == (
        "tokens",
        f"total tokens {counted + 1} of {counted + 1} spent",
    )


@pytest.mark.parametrize("count", [False, True])
def test_the_gateway_refuses_on_cache_reads_only_when_they_count(count: bool) -> None:
    limits = RunLimits(max_input_tokens=100, count_cached_input=count)
    with GatewayThread("script") as gateway:
        route = gateway.open_route("unit", source=CachedUsage(), budget=Budget.of(limits))
        client = anthropic.Anthropic(base_url=route.base_url, api_key="dummy", max_retries=0, timeout=10.0)
        client.messages.create(model="m", max_tokens=5, messages=PROMPT)
        if count:
            with pytest.raises(anthropic.BadRequestError, match="input tokens 505 of 100 spent"):
                client.messages.create(model="m", max_tokens=5, messages=PROMPT)
        else:
            client.messages.create(model="m", max_tokens=5, messages=PROMPT)
            assert route.budget_exceeded is None
