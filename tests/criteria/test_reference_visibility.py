"""Which criteria see the reference, and what grading does around each one (the engine's GradingControl)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade
from coder_eval.models.criteria import SuccessCriterion
from coder_eval.models.criteria_base import BaseCriterion

CRITERIA: TypeAdapter[Any] = TypeAdapter(SuccessCriterion)


def spec(**fields: Any) -> BaseCriterion:
    criterion: BaseCriterion = CRITERIA.validate_python({"description": "d", **fields})
    return criterion


@pytest.mark.parametrize(
    ("fields", "sees"),
    [
        pytest.param({"type": "run_command", "command": 'diff "$REFERENCE_DIR/a" a'}, True, id="run-names-it"),
        pytest.param({"type": "run_command", "command": "python ${REFERENCE_DIR}/check.py"}, True, id="braces"),
        pytest.param({"type": "run_command", "command": "pytest tests/"}, False, id="run-does-not"),
        pytest.param({"type": "run_command", "command": "echo $REFERENCE_DIRX"}, False, id="another-name"),
        pytest.param({"type": "reference_comparison", "agent_file": "a.py", "reference_file": "a.py"}, True, id="rc"),
        pytest.param({"type": "llm_judge", "prompt": "p"}, True, id="judge-default-includes-it"),
        pytest.param({"type": "llm_judge", "prompt": "p", "include_reference": False}, False, id="judge-without"),
        pytest.param(
            {"type": "llm_judge", "prompt": "p", "include_reference": False, "files": ["$REFERENCE_DIR/a.py"]},
            True,
            id="judge-file-from-it",
        ),
        pytest.param(
            {"type": "system_one_judge", "prompt": "p", "questions": {"q": {"type": "noul", "instructions": "i"}}},
            False,
            id="system-one-default-without",
        ),
        pytest.param({"type": "json_check", "path": "a.json", "json_schema": "$REFERENCE_DIR/s.json"}, True, id="js"),
        pytest.param({"type": "json_check", "path": "a.json", "json_schema": "schema.json"}, False, id="js-own"),
        pytest.param({"type": "file_exists", "path": "REFERENCE_DIR.txt"}, False, id="files-never"),
    ],
)
def test_the_criteria_that_name_the_reference_see_it(fields: dict[str, Any], sees: bool) -> None:
    assert spec(**fields).sees_reference is sees


class Recorder:
    """A GradingControl that notes what the engine would be asked to do."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, bool | None]] = []

    def before(self, spec: BaseCriterion) -> dict[str, str]:
        self.calls.append(("before", spec.description, None))
        return {"REFERENCE_DIR": "/inside/reference"} if spec.sees_reference else {}

    def after(self, spec: BaseCriterion, ran_commands: bool) -> list[str]:
        self.calls.append(("after", spec.description, ran_commands))
        return ["a note from the engine"] if spec.sees_reference else []


def _ctx(tmp_path: Path, **extra: Any) -> CheckContext:
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    (ref / "a.py").write_text("print('the reference answer, long enough to scrub')\nshort = 1\n")
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "a.py").write_text("print('mine')\n")
    return CheckContext(root=ws, reference_dir=ref, **extra)


def test_reference_dir_reaches_only_the_criteria_that_see_it(tmp_path: Path) -> None:
    criteria = [
        spec(type="run_command", command='test -d "$REFERENCE_DIR"', description="names"),
        spec(
            type="run_command", command='env | grep -c "^REFERENCE" || true', expected_stdout="0", description="blind"
        ),
        spec(type="reference_comparison", agent_file="a.py", reference_file="a.py", description="compare"),
    ]
    outcome = grade(criteria, _ctx(tmp_path))
    assert [r.description for r in outcome.results if r.score > 0] == ["names", "blind", "compare"], outcome.results


def test_the_engine_is_asked_around_every_criterion(tmp_path: Path) -> None:
    control = Recorder()
    criteria = [
        spec(type="file_exists", path="a.py", description="reads"),
        spec(type="run_command", command='test "$REFERENCE_DIR" = /inside/reference', description="names"),
        spec(type="run_command", command="true", description="runs"),
    ]
    outcome = grade(criteria, _ctx(tmp_path, grading=control))
    assert control.calls == [
        ("before", "reads", None),
        ("after", "reads", False),
        ("before", "names", None),
        ("after", "names", True),
        ("before", "runs", None),
        ("after", "runs", True),
    ]
    assert all(r.score == 1.0 for r in outcome.results), outcome.results
    assert outcome.results[1].details.endswith("a note from the engine")


def test_results_are_scrubbed_near_the_reference(tmp_path: Path) -> None:
    failing = spec(type="run_command", command='diff "$REFERENCE_DIR/a.py" a.py', description="diff")
    (result,) = grade([failing], _ctx(tmp_path)).results
    assert result.score == 0.0
    assert "the reference answer" not in result.details and "short = 1" not in result.details
    assert "print('mine')" in result.details
