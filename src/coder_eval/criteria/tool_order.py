"""tool_order: the first call of one kind comes before the first call of another."""

from __future__ import annotations

from coder_eval.criteria import bounded
from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.registry import register_criterion
from coder_eval.criteria.shell_text import command_text, haystacks
from coder_eval.models.criteria_trajectory import ToolCallMatch, ToolOrderCriterion
from coder_eval.models.results import CriterionResult
from coder_eval.models.telemetry import CommandTelemetry
from coder_eval.models.tools import tool_matches


def call_matches(want: ToolCallMatch, cmd: CommandTelemetry) -> bool:
    """The tool filter holds and, with a pattern, it is found in the call's command or input text.

    A call the agent's permission layer refused never ran, so it never matches."""
    if cmd.status == "refused" or not tool_matches(want.tool, cmd.tool_name, cmd.tool_kind):
        return False
    if want.pattern is None:
        return True
    return any(bounded.search(want.pattern, t) for t in haystacks(command_text(cmd.tool_name, cmd.parameters)))


def _first(want: ToolCallMatch, calls: list[CommandTelemetry]) -> int:
    return next((i for i, cmd in enumerate(calls) if call_matches(want, cmd)), -1)


def _label(want: ToolCallMatch) -> str:
    return want.tool if want.pattern is None else f"{want.tool} ~ {want.pattern}"


@register_criterion("tool_order", spec=ToolOrderCriterion)
class ToolOrder(Criterion[ToolOrderCriterion]):
    """Binary: both calls happened and the first of `first` precedes the first of `then`."""

    def evaluate(self, spec: ToolOrderCriterion, ctx: CheckContext) -> CriterionResult:
        calls = [c for turn in ctx.turns or [] for c in turn.commands]
        first, then = _first(spec.first, calls), _first(spec.then, calls)
        if first < 0:
            return self.result(spec, 0.0, details=f"no call matches {_label(spec.first)}")
        if then < 0:
            return self.result(spec, 0.0, details=f"no call matches {_label(spec.then)}")
        ok = first < then
        order = "precedes" if ok else "does not precede"
        details = f"{_label(spec.first)} (call {first + 1}) {order} {_label(spec.then)} (call {then + 1})"
        return self.result(spec, 1.0 if ok else 0.0, details=details)
