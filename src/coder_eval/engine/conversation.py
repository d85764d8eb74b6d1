"""How the agent phase talks to the agent: one turn, one watched turn (early stop), or a dialog."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coder_eval.agents.base import Agent
from coder_eval.agents.events import StreamCallback
from coder_eval.agents.renderers import compose
from coder_eval.criteria.grading import Grade
from coder_eval.engine.agent_phase import RetryPolicy, run_turn
from coder_eval.engine.early_stop import EarlyStopWatcher, armed_criteria, gate_stopped_run

if TYPE_CHECKING:
    from coder_eval.engine.orchestrator import UnitState


async def drive_agent(
    agent: Agent[Any], state: UnitState, stream: StreamCallback | None, retry: RetryPolicy, grader: Any = None
) -> None:
    """Run the unit's conversation with `agent`; results land on `state`."""
    definition = state.unit.task.definition
    limits = definition.run_limits
    if definition.simulation is not None and definition.simulation.enabled:
        from coder_eval.engine.dialog import run_dialog

        await run_dialog(agent, state, stream, retry, grader)
        return
    prompt = definition.initial_prompt or ""
    armed = armed_criteria(definition.success_criteria, limits)
    if not armed:
        await run_turn(agent, prompt, limits, retry=retry, log=state.log, stream=stream, phase=state.phase)
        return
    watcher = EarlyStopWatcher(armed, limits.stop_early_gate_threshold, max_turns=limits.max_turns)
    await run_turn(
        agent,
        prompt,
        limits,
        retry=retry,
        log=state.log,
        stream=compose(stream, watcher),
        phase=state.phase,
        should_stop=watcher.should_stop,
    )
    state.early_stop = watcher.info
    if watcher.info is not None:
        info = watcher.info
        state.log.add(
            f"early stop ({info.reason}) after tool call {info.tool_call_index}: {info.deciding_criterion_description}"
        )


def apply_early_stop_gate(state: UnitState, grade: Grade) -> None:
    """An early-stopped run is gated by its armed criteria only; the others become advisory."""
    if state.early_stop is None:
        return
    definition = state.unit.task.definition
    armed = armed_criteria(definition.success_criteria, definition.run_limits)
    grade.gate = gate_stopped_run(
        definition.success_criteria, grade.results, armed, definition.run_limits.stop_early_gate_threshold
    )
