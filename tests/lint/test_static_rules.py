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
