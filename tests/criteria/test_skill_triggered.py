"""skill_triggered: Skill calls (namespace stripped) or reads under skills/<name>/, against the expected label."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import spec

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade_one
from coder_eval.models.results import ClassificationCriterionResult
from coder_eval.models.telemetry import CommandTelemetry, TurnRecord


def turns(*calls: tuple[str, dict]) -> list[TurnRecord]:
    return [TurnRecord(iteration=1, commands=[CommandTelemetry(tool_name=t, parameters=p) for t, p in calls])]


@pytest.mark.parametrize(
    ("calls", "expected_skill", "observed", "score"),
    [
        ([("Skill", {"skill": "uipath-agents"})], "uipath-agents", "yes", 1.0),
        ([("Skill", {"skill": "uipath-coded-agents:uipath-agents"})], "uipath-agents", "yes", 1.0),
        ([("Skill", {"skill": "other"})], "uipath-agents", "no", 0.0),
        ([("Read", {"file_path": "/x/.agents/skills/uipath-agents/SKILL.md"})], "uipath-agents", "yes", 1.0),
        ([("shell", {"command": "cat skills/uipath-agents/SKILL.md"})], "uipath-agents", "yes", 1.0),
        ([("Read", {"file_path": "skills/uipath-agents-extra/SKILL.md"})], "uipath-agents", "no", 0.0),
        ([], "", "no", 1.0),  # a negative row: the skill must not fire
        ([("Skill", {"skill": "uipath-agents"})], "", "yes", 0.0),
        ([], "uipath-agents", "no", 0.0),
    ],
)
def test_observed_against_expected(tmp_path: Path, calls, expected_skill, observed, score):
    crit = spec(type="skill_triggered", skill_name="uipath-agents", expected_skill=expected_skill)
    result, _ = grade_one(crit, CheckContext(root=tmp_path, turns=turns(*calls)))
    assert isinstance(result, ClassificationCriterionResult)
    assert (result.observed_label, result.score) == (observed, score)
    assert result.expected_label == ("yes" if expected_skill == "uipath-agents" else "no")


def test_without_a_trajectory_it_is_not_evaluated(tmp_path: Path):
    crit = spec(type="skill_triggered", skill_name="s", expected_skill="s")
    result, _ = grade_one(crit, CheckContext(root=tmp_path, turns=None))
    assert result.evaluation_status == "not_evaluated"
