"""`plan` checks beyond the schema: named directories exist, paths stay inside the sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder_eval.loading.static_checks import task_problems
from coder_eval.models.task import TaskDefinition


def make(**extra: Any) -> TaskDefinition:
    doc: dict[str, Any] = {
        "task_id": "t",
        "description": "d",
        "initial_prompt": "p",
        "success_criteria": [{"type": "file_exists", "path": "a.txt", "description": "d"}],
    }
    doc.update(extra)
    return TaskDefinition.model_validate(doc)


def test_clean_task_has_no_problems(tmp_path: Path) -> None:
    assert task_problems(make(), tmp_path) == []


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "C:/Windows/win.ini", "a/../../b"])
def test_criterion_path_outside_the_sandbox(tmp_path: Path, path: str) -> None:
    task = make(success_criteria=[{"type": "file_exists", "path": path, "description": "d"}])
    (problem,) = task_problems(task, tmp_path)
    assert problem.field_path == "success_criteria[0].path"
    assert "points outside the sandbox" in problem.message


@pytest.mark.parametrize("path", ["$TASK_DIR/../fixtures/x.json", "$REFERENCE_DIR/x.py", "**/*.flow", "out/a.txt"])
def test_criterion_paths_that_are_fine(tmp_path: Path, path: str) -> None:
    task = make(success_criteria=[{"type": "file_exists", "path": path, "description": "d"}])
    assert task_problems(task, tmp_path) == []


def test_missing_directories_are_reported(tmp_path: Path) -> None:
    task = make(
        sandbox={"template_sources": [{"type": "template_dir", "path": "tpl"}], "mock_path_dirs": ["../bin"]},
        reference={"directory": "reference"},
        agent={"system_prompt_file": "prompt.md"},
    )
    found = {p.field_path: p.message for p in task_problems(task, tmp_path)}
    assert set(found) == {
        "sandbox.template_sources[0].path",
        "reference.directory",
        "agent.system_prompt_file",
        "sandbox.mock_path_dirs[0]",
    }
    (tmp_path / "tpl").mkdir()
    (tmp_path / "reference").mkdir()
    (tmp_path / "prompt.md").write_text("x", encoding="utf-8")
    assert [p.field_path for p in task_problems(task, tmp_path)] == ["sandbox.mock_path_dirs[0]"]
