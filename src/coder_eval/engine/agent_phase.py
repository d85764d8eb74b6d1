"""Drive the agent through its turn(s): retries with backoff, turn timeouts, budgets.

The harness owns retries: a transient failure is retried with exponential
backoff, each failed attempt kept as a crashed turn. A turn past `turn_timeout`
has the agent's whole process group killed and keeps its partial turn.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from coder_eval.agents.base import Agent, ShouldStop
from coder_eval.agents.errors import AgentCrashError, BudgetExceededError, TransientAgentError, TurnTimeoutError
from coder_eval.agents.events import StreamCallback
from coder_eval.engine.task_log import TaskLog
from coder_eval.gateway.budget import Budget
from coder_eval.models.task_parts import RunLimits
from coder_eval.models.telemetry import TokenUsage, TurnRecord
from coder_eval.pricing import calculate_cost

Outcome = Literal["ok", "timeout", "crashed", "token_budget", "cost_budget"]


@dataclass
class RetryPolicy:
    max_retries: int = 2
    backoff_seconds: float = 1.0


@dataclass
class AgentPhase:
    """What the agent phase produced."""

    turns: list[TurnRecord] = field(default_factory=list)
    outcome: Outcome = "ok"
    error: str | None = None

    @property
    def max_turns_exhausted(self) -> bool:
        return any(t.max_turns_exhausted for t in self.turns)


def price_turn(turn: TurnRecord) -> TurnRecord:
    """Fill in the turn's cost from the rate card when the agent did not report one."""
    usage = turn.token_usage
    if usage.total_cost_usd is not None:
        return turn
    if usage.total_tokens == 0:
        priced = usage.model_copy(update={"total_cost_usd": 0.0})
    else:
        cost = calculate_cost(
            turn.model_used,
            usage.uncached_input_tokens,
            usage.output_tokens,
            usage.cache_creation_input_tokens,
            usage.cache_read_input_tokens,
        )
        priced = usage.model_copy(update={"total_cost_usd": cost})
    return turn.model_copy(update={"token_usage": priced})


def total_usage(turns: list[TurnRecord]) -> TokenUsage:
    total = TokenUsage(total_cost_usd=0.0)
    unpriced = False
    for t in turns:
        unpriced |= t.token_usage.total_cost_usd is None and t.token_usage.total_tokens > 0
        total = total + t.token_usage
    return total.model_copy(update={"total_cost_usd": None}) if unpriced else total


def budget_breach(limits: RunLimits, turns: list[TurnRecord]) -> tuple[Outcome, str] | None:
    """Whether the turns so far have exhausted the unit's budget, by the gateway's own rule."""
    budget = Budget.of(limits)
    if budget is None:
        return None
    usage = total_usage(turns)
    breach = budget.exceeded(usage, usage.total_cost_usd)
    if breach is None:
        return None
    kind, reason = breach
    return ("cost_budget" if kind == "usd" else "token_budget"), f"budget exceeded: {reason}"


def _crashed_turn(agent: Agent[Any], iteration: int, prompt: str, reason: str) -> TurnRecord:
    turn = agent.pending_turn
    agent.discard_pending_turn()
    if turn is None:
        turn = TurnRecord(iteration=iteration, user_input=prompt, timestamp=datetime.now(UTC))
    return price_turn(turn.model_copy(update={"crashed": True, "crash_reason": reason}))


def _timeout_reason(limits: RunLimits, exc: Exception) -> str:
    """Why the turn ended: our own turn deadline, or a plugin agent's own timeout (TurnTimeoutError)."""
    if isinstance(exc, TurnTimeoutError):
        said = f": {exc}" if str(exc) else ""
        return f"the agent reported a turn timeout{said}; its processes were killed"
    return f"turn timed out after {limits.turn_timeout:g}s; the agent's processes were killed"


async def _one_attempt(
    agent: Agent[Any], prompt: str, limits: RunLimits, stream: StreamCallback | None, should_stop: ShouldStop | None
) -> TurnRecord:
    call = agent.communicate(
        prompt, stream_callback=stream, timeout=limits.turn_timeout, max_turns=limits.max_turns, should_stop=should_stop
    )
    if limits.turn_timeout is None:
        return await call
    return await asyncio.wait_for(call, timeout=limits.turn_timeout)


async def run_turn(
    agent: Agent[Any],
    prompt: str,
    limits: RunLimits,
    *,
    retry: RetryPolicy,
    log: TaskLog,
    stream: StreamCallback | None,
    phase: AgentPhase,
    should_stop: ShouldStop | None = None,
) -> None:
    """One user turn, retried on transient errors; results and failures land on `phase`."""
    failures = 0
    while True:
        iteration = agent.iteration + 1
        try:
            turn = price_turn(await _one_attempt(agent, prompt, limits, stream, should_stop))
        except asyncio.CancelledError:
            # The task deadline (or Ctrl-C) cut the turn: kill the agent, keep what it did.
            await asyncio.shield(asyncio.to_thread(agent.kill_sync))
            phase.turns.append(_crashed_turn(agent, iteration, prompt, "cancelled (task deadline or interrupt)"))
            raise
        except (TimeoutError, TurnTimeoutError) as exc:
            await asyncio.to_thread(agent.kill_sync)
            reason = _timeout_reason(limits, exc)
            phase.turns.append(_crashed_turn(agent, iteration, prompt, reason))
            phase.outcome, phase.error = "timeout", reason
            log.add(reason)
            return
        except BudgetExceededError as exc:
            phase.turns.append(_crashed_turn(agent, iteration, prompt, str(exc)))
            phase.outcome = "cost_budget" if exc.kind == "usd" else "token_budget"
            phase.error = str(exc)
            return
        except TransientAgentError as exc:
            failures += 1
            phase.turns.append(_crashed_turn(agent, iteration, prompt, f"transient: {exc}"))
            if failures > retry.max_retries:
                phase.outcome, phase.error = "crashed", f"agent failed {failures} times, last: {exc}"
                log.add(phase.error)
                return
            delay = retry.backoff_seconds * 2 ** (failures - 1)
            log.add(f"transient agent failure ({exc}); retry {failures}/{retry.max_retries} in {delay:g}s")
            await asyncio.sleep(delay)
            continue
        except AgentCrashError as exc:
            phase.turns.append(_crashed_turn(agent, iteration, prompt, str(exc)))
            phase.outcome, phase.error = "crashed", f"agent crashed: {exc}"
            log.add(phase.error)
            return
        phase.turns.append(turn)
        log.add(
            f"turn {turn.iteration}: {len(turn.commands)} tool calls, {turn.token_usage.total_tokens} tokens, "
            f"{turn.duration_seconds:.2f}s"
        )
        breach = budget_breach(limits, phase.turns)
        if breach is not None:
            phase.outcome, phase.error = breach
            log.add(breach[1])
        return
