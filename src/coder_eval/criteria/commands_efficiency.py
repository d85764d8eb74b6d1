"""commands_efficiency: expected tool calls against the calls the agent made."""

from __future__ import annotations

from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_commands import CommandsEfficiencyCriterion
from coder_eval.models.results import CriterionResult


@register_criterion("commands_efficiency", spec=CommandsEfficiencyCriterion)
class CommandsEfficiency(Criterion[CommandsEfficiencyCriterion]):
    """Continuous: expected / max(actual, expected) — 1.0 at or under budget, 0.5 at twice it."""

    def evaluate(self, spec: CommandsEfficiencyCriterion, ctx: CheckContext) -> CriterionResult:
        actual = sum(len(turn.commands) for turn in ctx.turns or [])
        score = spec.expected_commands / max(actual, spec.expected_commands)
        return self.result(spec, score, details=f"{actual} tool calls against a budget of {spec.expected_commands}")
