"""command_executed: matching tool calls in the agent's trajectory."""

from __future__ import annotations

from coder_eval.criteria import bounded
from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.registry import register_criterion
from coder_eval.criteria.shell_text import command_text, haystacks
from coder_eval.models.criteria_commands import CommandExecutedCriterion
from coder_eval.models.results import CriterionResult
from coder_eval.models.telemetry import CommandTelemetry
from coder_eval.models.tools import tool_matches


def matches(spec: CommandExecutedCriterion, cmd: CommandTelemetry) -> bool:
    """Tool filter, success filter, pattern hit on raw or normalized text, and no exclusion hit.

    A call the agent's permission layer refused never ran, so it never matches."""
    return cmd.status != "refused" and _pattern_hit(spec, cmd)


def _pattern_hit(spec: CommandExecutedCriterion, cmd: CommandTelemetry) -> bool:
    if spec.tool_name is not None and not tool_matches(spec.tool_name, cmd.tool_name, cmd.tool_kind):
        return False
    if spec.require_success and cmd.status != "success":
        return False
    texts = haystacks(command_text(cmd.tool_name, cmd.parameters))
    if spec.command_pattern is not None and not any(bounded.search(spec.command_pattern, t) for t in texts):
        return False
    return not (spec.exclude_pattern is not None and any(bounded.search(spec.exclude_pattern, t) for t in texts))


@register_criterion("command_executed", spec=CommandExecutedCriterion)
class CommandExecuted(Criterion[CommandExecutedCriterion]):
    """Fractional: matching calls / min_count, capped at 1; 0 when above max_count.

    With min_count 0 and max_count 0 it asserts a command never ran.
    """

    def evaluate(self, spec: CommandExecutedCriterion, ctx: CheckContext) -> CriterionResult:
        commands = [c for turn in ctx.turns or [] for c in turn.commands]
        hits = [c for c in commands if matches(spec, c)]
        refused = sum(c.status == "refused" and _pattern_hit(spec, c) for c in commands)
        note = (
            f"; {refused} matching call(s) were refused by the agent's permissions and not counted" if refused else ""
        )
        n = len(hits)
        if spec.max_count is not None and n > spec.max_count:
            shown = "; ".join(command_text(c.tool_name, c.parameters)[:80] for c in hits[:3])
            return self.result(
                spec, 0.0, details=f"{n} matching calls, at most {spec.max_count} allowed: {shown}{note}"
            )
        score = 1.0 if spec.min_count == 0 else min(1.0, n / spec.min_count)
        return self.result(
            spec, score, details=f"{n} of {len(commands)} tool calls match (need {spec.min_count}){note}"
        )
