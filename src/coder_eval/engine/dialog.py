"""Dialog mode: the agent talks with a simulated user until one of the stop rules fires.

The simulated user is a plain model call (no tools, no sandbox, no reference) on its own gateway
route with the pinned `simulation.model`; it sees its persona, goal, constraints, the task's
description and opening prompt, and the conversation so far. After each exchange the rules are
checked in this order, the first that holds ends the dialog and is recorded as `stop_reason`:

1. `run_limit_exceeded` — the agent hit a run limit (budget, timeout) or crashed (`error`);
2. `criteria_passed` — `stop_on_criteria_pass` and every criterion passes (per-turn checks);
3. `max_turns` — the exchange cap, or the agent ran out of its own turns;
4. `budget` — agent plus simulator tokens reached `simulation.max_total_tokens`;
5. `stop_token` — the simulator's next line contains the stop token (asked for only now).

A failing simulator call ends the dialog with `error`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from coder_eval.agents.base import Agent
from coder_eval.agents.events import StreamCallback
from coder_eval.criteria.grading import Grade
from coder_eval.engine.agent_phase import RetryPolicy, run_turn, total_usage
from coder_eval.judges.prompt import DialogMessage
from coder_eval.judges.services import simulator_channel
from coder_eval.judges.transport import JudgeCallError, JudgeUnavailableError, ModelCall, Transport
from coder_eval.models.task_parts import SimulationConfig

if TYPE_CHECKING:
    from coder_eval.engine.orchestrator import UnitState

KICKOFF = "(The conversation starts now. Write your first message to the assistant.)"


def simulator_system(sim: SimulationConfig, description: str, opening: str | None) -> str:
    rules = "\n".join(f"- {c}" for c in sim.constraints) or "- none"
    parts = [
        "You are role-playing a USER talking to an AI coding assistant. Stay in character; reply with the "
        "user's next message only, as plain text. You cannot see files or run anything.",
        f"PERSONA:\n{(sim.persona or '').strip()}",
        f"GOAL:\n{(sim.goal or '').strip()}",
        f"CONSTRAINTS:\n{rules}",
        f"TASK DESCRIPTION:\n{description.strip()}",
    ]
    if opening:
        parts.append(f"YOUR OPENING MESSAGE (already sent):\n{opening.strip()}")
    parts.append(f"When your goal is met, reply with exactly {sim.stop_token} and nothing else.")
    return "\n\n".join(parts)


def simulator_messages(dialog: list[DialogMessage]) -> list[dict[str, str]]:
    """The conversation from the simulator's side: its lines are `assistant`, the agent's `user`."""
    out = [{"role": "user", "content": KICKOFF}]
    for m in dialog:
        out.append({"role": "assistant" if m.role == "user" else "user", "content": m.text or "(no reply)"})
    return out


@dataclass
class DialogState:
    sim: SimulationConfig
    dialog: list[DialogMessage] = field(default_factory=list)
    stop_reason: str | None = None
    failures: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    checks: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    def record(self, replicate: int) -> dict[str, Any]:
        return {
            "stop_reason": self.stop_reason,
            "turns": sum(1 for m in self.dialog if m.role == "agent"),
            "replicate_index": replicate,
            "n_trials": self.sim.n_trials,
            "model": self.sim.model,
            "simulator_failures": self.failures,
            "simulator_input_tokens": self.input_tokens,
            "simulator_output_tokens": self.output_tokens,
            "check_criteria": self.sim.check_criteria,
            "turn_checks": self.checks,
            "dialog": [{"role": m.role, "text": m.text} for m in self.dialog],
            **({"simulator_error": self.error} if self.error else {}),
        }


async def _simulator_line(transport: Transport, d: DialogState, system: str) -> str | None:
    request = ModelCall(model=d.sim.model, system=system, messages=simulator_messages(d.dialog), max_tokens=1024)
    try:
        answer = await asyncio.to_thread(transport.call, request)
    except (JudgeCallError, JudgeUnavailableError) as exc:
        d.failures += 1
        d.stop_reason, d.error = "error", str(exc)
        return None
    d.input_tokens += answer.input_tokens
    d.output_tokens += answer.output_tokens
    return answer.text.strip()


async def _after_exchange(
    state: UnitState, d: DialogState, exchange: int, grader: Callable[[], Grade] | None
) -> str | None:
    """The stop rule that holds after this exchange (1-4), or None to ask the simulator."""
    phase, sim = state.phase, d.sim
    if phase.outcome == "crashed":
        return "error"
    if phase.outcome != "ok":
        return "run_limit_exceeded"
    if sim.check_criteria in ("every_turn", "both") and grader is not None:
        grade = await asyncio.to_thread(grader)
        d.checks.append({"turn": exchange, "weighted_score": grade.weighted_score, "status": grade.status.value})
        if sim.check_criteria == "every_turn":
            state.grade = grade
        if sim.stop_on_criteria_pass and grade.status.value == "SUCCESS":
            return "criteria_passed"
    if exchange >= sim.max_turns or phase.max_turns_exhausted:
        return "max_turns"
    used = total_usage(phase.turns).total_tokens + d.input_tokens + d.output_tokens
    if sim.max_total_tokens is not None and used >= sim.max_total_tokens:
        return "budget"
    return None


async def run_dialog(
    agent: Agent[Any],
    state: UnitState,
    stream: StreamCallback | None,
    retry: RetryPolicy,
    grader: Callable[[], Grade] | None,
) -> None:
    definition = state.unit.task.definition
    sim = definition.simulation
    assert sim is not None
    d = DialogState(sim)
    services = state.judges
    try:
        if services is None:
            raise JudgeUnavailableError("no model route for the simulated user")
        services.dialog = d.dialog
        system = simulator_system(sim, definition.description, definition.initial_prompt)
        with simulator_channel(services) as transport:
            await _converse(agent, state, d, transport, system, stream, retry, grader)
    except JudgeUnavailableError as exc:
        d.failures += 1
        d.stop_reason, d.error = "error", str(exc)
    if d.stop_reason == "error" and not state.phase.turns:
        state.phase.outcome, state.phase.error = "crashed", f"the simulated user failed: {d.error}"
    state.simulation = d.record(state.unit.replicate_index)
    state.log.add(f"dialog ended: {d.stop_reason} after {state.simulation['turns']} exchanges")


async def _converse(
    agent: Agent[Any],
    state: UnitState,
    d: DialogState,
    transport: Transport,
    system: str,
    stream: StreamCallback | None,
    retry: RetryPolicy,
    grader: Callable[[], Grade] | None,
) -> None:
    limits = state.unit.task.definition.run_limits
    message = (state.unit.task.definition.initial_prompt or "").strip() or await _simulator_line(transport, d, system)
    exchange = 0
    while message is not None:
        exchange += 1
        d.dialog.append(DialogMessage("user", message))
        await run_turn(agent, message, limits, retry=retry, log=state.log, stream=stream, phase=state.phase)
        reply = state.phase.turns[-1].agent_output if state.phase.turns else ""
        d.dialog.append(DialogMessage("agent", reply or ""))
        reason = await _after_exchange(state, d, exchange, grader)
        if reason is not None:
            d.stop_reason = reason
            return
        message = await _simulator_line(transport, d, system)
        if message is not None and d.sim.stop_token in message:
            d.dialog.append(DialogMessage("user", message))
            d.stop_reason = "stop_token"
            return
