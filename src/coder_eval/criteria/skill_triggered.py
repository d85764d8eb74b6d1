"""skill_triggered: did the agent engage a skill (a Skill call, or reading the skill's files)?"""

from __future__ import annotations

import re

from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_commands import SkillTriggeredCriterion
from coder_eval.models.results import ClassificationCriterionResult, CriterionResult
from coder_eval.models.telemetry import CommandTelemetry

YES, NO = "yes", "no"


def _skill_param(cmd: CommandTelemetry) -> str | None:
    for key in ("skill", "command", "name"):
        value = cmd.parameters.get(key)
        if isinstance(value, str):
            return value
    return None


def engaged(cmd: CommandTelemetry, skill: str) -> bool:
    """A Skill call naming it (namespace prefix stripped), or any parameter mentioning skills/<name>/."""
    if cmd.tool_name == "Skill" or cmd.tool_kind == "skill":
        named = _skill_param(cmd)
        if named is not None and named.split(":")[-1].strip().lstrip("/") == skill:
            return True
    marker = re.compile(rf"(?<![\w.-])skills[/\\]{re.escape(skill)}(?![\w.-])")
    return any(isinstance(v, str) and marker.search(v) for v in cmd.parameters.values())


@register_criterion("skill_triggered", spec=SkillTriggeredCriterion)
class SkillTriggered(Criterion[SkillTriggeredCriterion]):
    """Binary classifier: observed yes/no against expected (yes iff expected_skill names this skill)."""

    def evaluate(self, spec: SkillTriggeredCriterion, ctx: CheckContext) -> CriterionResult:
        commands = [c for turn in ctx.turns or [] for c in turn.commands]
        hit = next((c for c in commands if c.status != "refused" and engaged(c, spec.skill_name)), None)
        refused = any(c.status == "refused" and engaged(c, spec.skill_name) for c in commands)
        observed = YES if hit is not None else NO
        expected = YES if spec.expected_skill.strip() == spec.skill_name else NO
        how = f" via {hit.tool_name}" if hit is not None else ""
        detail = f"skill {spec.skill_name!r}: observed {observed}{how}, expected {expected}"
        if refused and hit is None:
            detail += " (a call that would have engaged it was refused by the agent's permissions)"
        return self.result(
            spec,
            1.0 if observed == expected else 0.0,
            details=detail,
            cls=ClassificationCriterionResult,
            observed_label=observed,
            expected_label=expected,
        )
