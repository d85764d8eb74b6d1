"""system_one_judge's reduction, and judges that cannot run here ending the run ERROR."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade
from coder_eval.criteria.system_one_judge import credit
from coder_eval.judges.services import JudgeServices
from coder_eval.models.criteria import parse_criterion
from coder_eval.models.criteria_judges import ChoiceQuestion, NoulQuestion, ScoreQuestion
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import TurnRecord


def test_credits_per_question_type() -> None:
    assert credit(NoulQuestion(instructions="q"), {"answer": True}) == (1.0, "yes")
    assert credit(NoulQuestion(instructions="q", expected=False), {"answer": "yes"}) == (0.0, "yes")
    bare = ChoiceQuestion(instructions="q", criteria=["a", "b"], expected="b")
    assert credit(bare, {"answer": "b"}) == (1.0, "b")
    valued = ChoiceQuestion(instructions="q", criteria={"x": "X", "y": "Y", "z": "Z"}, values={"x": 1.0, "y": 0.5})
    assert credit(valued, {"answer": "y"}) == (0.5, "y") and credit(valued, {"answer": "z"})[0] == 0.0
    scale = ScoreQuestion(instructions="q", criteria=["bad", "ok", "good"])
    assert credit(scale, {"answer": "ok"}) == (0.5, "ok") and credit(scale, {"answer": 2}) == (1.0, "good")
    assert credit(scale, {"answer": "great"})[1].startswith("unusable")


@dataclass
class _NoKeyOpener:
    mode: str = "direct"
    has_anthropic_key: bool = False

    def open(self, suffix: str, source: object, workdir: object, model: object) -> Any:
        raise AssertionError("a judge without a key must not open a route")


def _ctx(tmp_path: Path, criteria: list[Any]) -> CheckContext:
    services = JudgeServices(backend="direct", criteria=criteria, out_dir=tmp_path, opener=_NoKeyOpener())
    return CheckContext(root=tmp_path, turns=[TurnRecord(iteration=1)], judges=services)


def test_credentialless_system_one_ends_error_llm_judge_scores_zero(tmp_path: Path) -> None:
    questions = {"ok": {"type": "noul", "instructions": "fine?"}}
    rubric = parse_criterion(
        {"type": "system_one_judge", "description": "rubric", "prompt": "p", "questions": questions}
    )
    judge = parse_criterion({"type": "llm_judge", "description": "judge", "prompt": "p"})
    graded = grade([rubric, judge], _ctx(tmp_path, [rubric, judge]))
    assert graded.status is FinalStatus.ERROR
    assert "ANTHROPIC_API_KEY" in graded.unavailable[0]
    by = {r.description: r for r in graded.results}
    assert by["rubric"].evaluation_status == "not_evaluated"
    assert by["judge"].score == 0.0 and "ANTHROPIC_API_KEY" in (by["judge"].error or "")


def test_uipath_eval_names_the_extra(tmp_path: Path) -> None:
    spec = parse_criterion(
        {"type": "uipath_eval", "description": "ui", "agent_name": "a", "eval_set": "e", "thresholds": {"acc": 0.8}}
    )
    graded = grade([spec], CheckContext(root=tmp_path))
    assert graded.status is FinalStatus.ERROR and "uipath extra" in graded.unavailable[0]
