"""Early stop: end a single-shot run at a tool-call boundary once its armed criteria are decided.

A criterion with a `stop_early:` block is *armed* (unless `run_limits.stop_early: false`). The
watcher sees the agent's events as they stream; after each finished tool call it asks every armed
criterion for a live verdict — `pass`, `fail` or undecided — and latches the first decided one
(verdicts are monotonic, so a latched one is never re-asked). A criterion still undecided after
`decide_within` tool calls latches an effective fail (`decision_budget_exceeded`).

Then, with w the armed weights and t = `run_limits.stop_early_gate_threshold`:

- fail-stop: the best armed score still reachable (passed + undecided weight over all armed) is
  below t, and no `on_pass: stop` criterion is still undecided (a misfiring distractor must not
  cut the run before the positives resolve);
- pass-stop: every `on_pass: stop` criterion is decided, and their passed weight over their total
  reaches t.

The agent honours the stop cooperatively (`should_stop`); only kinds that declare
`cooperative_stop` may run armed tasks (checked when the unit starts).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from coder_eval.agents.events import ToolEndEvent, ToolStartEvent
from coder_eval.models.criteria_base import BaseCriterion, LiveCriterion
from coder_eval.models.criteria_commands import CommandExecutedCriterion, SkillTriggeredCriterion
from coder_eval.models.results import CriterionResult, EarlyStopInfo
from coder_eval.models.task_parts import RunLimits
from coder_eval.models.telemetry import CommandTelemetry

Live = Literal["pass", "fail"]
StopReason = Literal["criterion_passed", "criterion_failed", "decision_budget_exceeded"]


def armed_criteria(criteria: Sequence[BaseCriterion], limits: RunLimits) -> list[LiveCriterion]:
    if limits.stop_early is False:
        return []
    return [c for c in criteria if isinstance(c, LiveCriterion) and c.stop_early is not None]


def live_verdict(spec: LiveCriterion, commands: list[CommandTelemetry]) -> Live | None:
    """A verdict that no later tool call can change, or None while undecided."""
    if isinstance(spec, CommandExecutedCriterion):
        from coder_eval.criteria.command_executed import matches

        hits = sum(1 for c in commands if matches(spec, c))
        if spec.max_count is not None and hits > spec.max_count:
            return "fail"
        if spec.max_count is None and spec.min_count > 0 and hits / spec.min_count >= spec.pass_threshold:
            return "pass"
        return None
    if isinstance(spec, SkillTriggeredCriterion):
        from coder_eval.criteria.skill_triggered import engaged

        if any(engaged(c, spec.skill_name) for c in commands):
            return "pass" if spec.expected_skill.strip() == spec.skill_name else "fail"
        return None
    return None


@dataclass
class EarlyStopWatcher:
    """Stream callback + `should_stop` for one agent turn."""

    armed: list[LiveCriterion]
    threshold: float
    max_turns: int | None = None
    started: float = field(default_factory=time.monotonic)
    commands: list[CommandTelemetry] = field(default_factory=list)
    latched: dict[int, Live] = field(default_factory=dict)
    budget_failed: set[int] = field(default_factory=set)
    info: EarlyStopInfo | None = None
    _open: dict[str, ToolStartEvent] = field(default_factory=dict)
    _assistant_turns: int = 0

    def __call__(self, event: Any) -> None:
        if isinstance(event, ToolStartEvent):
            self._open[event.tool_use_id] = event
        elif isinstance(event, ToolEndEvent):
            start = self._open.pop(event.tool_use_id, None)
            if start is None or start.parent_tool_use_id is not None:
                return
            cmd = CommandTelemetry(
                tool_name=start.tool_name,
                parameters=start.parameters,
                status=event.status,
                sequence=len(self.commands) + 1,
                tool_use_id=event.tool_use_id,
            )
            self.commands.append(cmd)
            if self.info is None:
                self._decide()
        elif getattr(event, "kind", None) == "assistant_message":
            self._assistant_turns += 1

    def should_stop(self) -> bool:
        return self.info is not None

    def _decide(self) -> None:
        for i, spec in enumerate(self.armed):
            if i in self.latched:
                continue
            verdict = live_verdict(spec, self.commands)
            policy = spec.stop_early
            within = policy.decide_within if policy is not None else None
            if verdict is None and within is not None and len(self.commands) >= within:
                verdict = "fail"
                self.budget_failed.add(i)
            if verdict is not None:
                self.latched[i] = verdict
        self.info = self._stop()

    def _stop(self) -> EarlyStopInfo | None:
        total = sum(c.weight for c in self.armed) or 1.0
        ceiling = sum(c.weight for i, c in enumerate(self.armed) if self.latched.get(i) != "fail") / total
        stoppers = [i for i, c in enumerate(self.armed) if c.stop_early is not None and c.stop_early.on_pass == "stop"]
        undecided_stoppers = [i for i in stoppers if i not in self.latched]
        if ceiling < self.threshold and not undecided_stoppers:
            failed = [i for i, v in self.latched.items() if v == "fail"]
            decider = failed[-1] if failed else stoppers[-1] if stoppers else 0
            reason: StopReason = "decision_budget_exceeded" if decider in self.budget_failed else "criterion_failed"
            return self._info(reason, decider)
        if stoppers and not undecided_stoppers:
            weight = sum(self.armed[i].weight for i in stoppers) or 1.0
            floor = sum(self.armed[i].weight for i in stoppers if self.latched[i] == "pass") / weight
            if floor >= self.threshold and ceiling >= self.threshold:
                return self._info("criterion_passed", stoppers[-1])
        return None

    def _info(self, reason: StopReason, decider: int) -> EarlyStopInfo:
        spec = self.armed[decider]
        remaining = None if self.max_turns is None else max(0, self.max_turns - self._assistant_turns)
        return EarlyStopInfo(
            reason=reason,
            deciding_criterion_type=spec.type,
            deciding_criterion_description=spec.description,
            armed_criteria=[c.description for c in self.armed],
            sdk_turn_index=self._assistant_turns,
            tool_call_index=len(self.commands),
            elapsed_seconds=round(time.monotonic() - self.started, 3),
            turns_remaining_at_stop=remaining,
            gate_threshold=self.threshold,
        )


def gate_stopped_run(
    criteria: Sequence[BaseCriterion], results: list[CriterionResult], armed: list[LiveCriterion], threshold: float
) -> bool:
    """On an early-stopped run: mark the unarmed criteria advisory; True when the armed gate passes."""
    armed_ids = {id(c) for c in armed}
    num = den = 0.0
    for spec, result in zip(criteria, results, strict=True):
        if id(spec) in armed_ids:
            num += result.score * spec.weight
            den += spec.weight
        elif result.gating:
            result.gating = False
            result.details = _advisory(result.details)
    return den > 0 and num / den >= threshold


def _advisory(details: str) -> str:
    note = "advisory: the run stopped early, only armed criteria gate it"
    return note if not details else f"{note}; {re.sub(r'^advisory: [^;]*; ', '', details)}"
