"""The static lint rules, table-driven over task definitions built in memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder_eval.lint.static import static_findings
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.task import TaskDefinition


def loaded(tmp_path: Path, name: str, criteria: list[dict[str, Any]], **extra: Any) -> LoadedTask:
    doc = {
        "task_id": name,
        "description": name,
        "initial_prompt": extra.pop("prompt", "Write out.txt with the answer to the riddle."),
        "success_criteria": criteria,
        **extra,
    }
    return LoadedTask(TaskDefinition.model_validate(doc), tmp_path / f"{name}.yaml")


RUNS = {"type": "run_command", "command": "python check.py", "description": "runs"}


@pytest.mark.parametrize(
    ("criteria", "extra", "expected"),
    [
        ([{**RUNS, "weight": 0}], {}, {"CE102"}),
        ([{"type": "file_exists", "path": "out.txt", "description": "x"}], {}, {"CE103"}),
        (
            [{"type": "file_contains", "path": "out.txt", "includes": ["answer"], "description": "x"}],
            {},
            {"CE104"},
        ),
        (
            [{"type": "run_command", "command": "cat out.txt", "expected_stdout": "42", "description": "x"}],
            {},
            {"CE104"},
        ),
        (
            [{"type": "file_contains", "path": "out.txt", "includes": ["the secret phrase"], "description": "x"}, RUNS],
            {"prompt": "Write 'the secret phrase' to out.txt."},
            {"CE101"},
        ),
        ([RUNS], {"pre_run": [{"command": "python -m http.server 8000 &"}]}, {"CE106"}),
        (
            [RUNS],
            {"pre_run": [{"command": "python -m http.server 8000 &"}], "post_run": [{"command": "pkill -f x"}]},
            set(),
        ),
        ([RUNS, {"type": "file_exists", "path": "out.txt", "description": "x"}], {}, set()),
        ([{"type": "run_command", "command": "printf x > a && python a.py", "description": "x"}], {}, set()),
    ],
)
def test_rule_table(tmp_path: Path, criteria: list[dict[str, Any]], extra: dict[str, Any], expected: set[str]) -> None:
    found = static_findings([loaded(tmp_path, "t", criteria, **extra)])
    assert {f.rule_id for f in found} == expected, [f.message for f in found]


def test_near_duplicate_prompts_are_flagged_once(tmp_path: Path) -> None:
    prompt = "Create fizzbuzz.py that prints the numbers 1 to 15 with Fizz and Buzz, then run it."
    tasks = [
        loaded(tmp_path, "a", [RUNS], prompt=prompt),
        loaded(tmp_path, "b", [RUNS], prompt=prompt.replace("15", "20")),
        loaded(tmp_path, "c", [RUNS], prompt="Something else entirely: parse a CSV and sum a column."),
    ]
    found = [f for f in static_findings(tasks) if f.rule_id == "CE105"]
    assert [(f.task_id, "a" in f.message) for f in found] == [("b", True)]


REF = {"reference": {"directory": "reference"}}


@pytest.mark.parametrize(
    ("command", "flagged"),
    [
        pytest.param('python "$REFERENCE_DIR/check.py"', True, id="interpreter"),
        pytest.param('cp "$REFERENCE_DIR/tests.py" . && pytest tests.py', True, id="copies-then-runs"),
        pytest.param('REFERENCE_DIR="$REFERENCE_DIR" ./run_tests.sh', True, id="agent-script"),
        pytest.param('diff "$REFERENCE_DIR/out.txt" out.txt', False, id="diff"),
        pytest.param('cmp -s "$REFERENCE_DIR/a" a && grep -q ok <(cat "$REFERENCE_DIR/b")', False, id="read-only"),
        pytest.param("python check.py", False, id="no-reference"),
    ],
)
def test_ce108_agent_code_while_the_reference_is_visible(tmp_path: Path, command: str, flagged: bool) -> None:
    criteria = [{"type": "run_command", "command": command, "description": "x"}, RUNS]
    found = [f for f in static_findings([loaded(tmp_path, "t", criteria, **REF)]) if f.rule_id == "CE109"]
    assert bool(found) is flagged, found
    if flagged:
        assert "success_criteria[0]" in found[0].message and found[0].severity == "warning"


def test_ce108_agent_judge_with_the_reference(tmp_path: Path) -> None:
    judge = {"type": "agent_judge", "prompt": "run the tests", "description": "j"}
    found = {f.rule_id for f in static_findings([loaded(tmp_path, "t", [judge, RUNS], **REF)])}
    assert "CE109" in found
    judge["include_reference"] = False
    assert "CE109" not in {f.rule_id for f in static_findings([loaded(tmp_path, "t", [judge, RUNS], **REF)])}
