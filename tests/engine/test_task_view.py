"""The TASK_DIR view: what it leaves out, that it is made once, and the tamper check."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from coder_eval.engine.task_view import TaskViewTamperedError, remove_views, task_view, verify_view


@pytest.fixture(autouse=True)
def _fresh_views() -> Iterator[None]:
    remove_views()
    yield
    remove_views()


def _task_tree(root: Path) -> Path:
    task = root / "task"
    (task / "tests").mkdir(parents=True)
    (task / "task.yaml").write_text("task_id: t\n")
    (task / "tests" / "grader.py").write_text("print('ok')\n")
    (task / "reference").mkdir()
    (task / "reference" / "solution.py").write_text("secret\n")
    return task


def _files(view: Path) -> set[str]:
    return {str(p.relative_to(view)) for p in view.rglob("*") if p.is_file()}


def test_the_view_leaves_out_the_reference_and_every_run_directory(tmp_path: Path) -> None:
    task = _task_tree(tmp_path)
    earlier = task / "runs" / "2026-01-01_000000"
    (earlier / "default" / "t").mkdir(parents=True)
    (earlier / "run.json").write_text("{}")
    (earlier / "default" / "t" / "task.json").write_text("{}")
    going = task / "other-runs" / "now"
    going.mkdir(parents=True)
    (going / "run-plan.json").write_text("{}")
    current = task / "runs" / "current"
    current.mkdir()
    (current / "notes.txt").write_text("being written\n")
    view = task_view(task, task / "reference", current)
    assert _files(view) == {"task.yaml", "tests/grader.py"}


def test_the_view_is_made_once_and_a_changed_one_is_refused(tmp_path: Path) -> None:
    task = _task_tree(tmp_path)
    run_dir = tmp_path / "run"
    view = task_view(task, task / "reference", run_dir)
    assert task_view(task, task / "reference", run_dir) == view
    verify_view(view)  # unchanged: nothing raised
    grader = view / "tests" / "grader.py"
    grader.chmod(0o644)
    grader.write_text("import sys; sys.exit(0)\n")
    with pytest.raises(TaskViewTamperedError, match=r"grader\.py"):
        verify_view(view)
    fresh = task_view(task, task / "reference", run_dir)  # the changed one was set aside
    assert (fresh / "tests" / "grader.py").read_text() == "print('ok')\n"
    assert [p.name for p in view.parent.iterdir() if ".changed-" in p.name]
    assert not os.access(fresh / "tests" / "grader.py", os.W_OK) or os.geteuid() == 0
