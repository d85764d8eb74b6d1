"""template_dir as suites written for the reference use it: include_patterns, templates elsewhere in the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_eval.common.ignore import IgnoreRules
from coder_eval.errors import TaskConfigError
from coder_eval.loading.static_checks import task_problems
from coder_eval.models.host_paths import repository_root
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.models.task import TaskDefinition
from coder_eval.sandbox.drivers import PreservationMode
from coder_eval.sandbox.sandbox import Sandbox
from coder_eval.sandbox.templates import copy_tree


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def tree(root: Path, rels: list[str]) -> Path:
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    return root


TEMPLATE = [
    "src/app.py",
    "node_modules/left-pad/index.js",
    "node_modules/other/index.js",
    "dist/bundle.js",
    "dist/map/bundle.js.map",
    "pkg/.env",
    "pkg/__pycache__/x.pyc",
]


@pytest.mark.parametrize(
    ("include", "extra"),
    [
        ([], set()),
        (["node_modules/left-pad/**"], {"node_modules/left-pad/index.js"}),
        (["dist"], {"dist/bundle.js", "dist/map/bundle.js.map"}),
        (["dist/*.js"], {"dist/bundle.js"}),
        (["*.pyc"], set()),  # a bare name does not open an ignored directory
        (["pkg/__pycache__/*.pyc"], {"pkg/__pycache__/x.pyc"}),
    ],
)
def test_include_patterns_copy_ignored_entries_and_nothing_else(tmp_path: Path, include: list[str], extra: set[str]):
    src = tree(tmp_path / "tpl", TEMPLATE)
    copy_tree(src, tmp_path / "out", IgnoreRules.with_overrides(), include)
    assert files(tmp_path / "out") == {"src/app.py", "pkg/.env", *extra}
    assert not (tmp_path / "out" / "node_modules" / "other").exists()


def test_directories_entered_for_a_pattern_that_matched_nothing_are_removed(tmp_path: Path):
    src = tree(tmp_path / "tpl", TEMPLATE)
    copy_tree(src, tmp_path / "out", IgnoreRules.with_overrides(), ["node_modules/absent/**"])
    assert not (tmp_path / "out" / "node_modules").exists()


def test_include_patterns_through_the_sandbox(tmp_path: Path):
    task_dir = tmp_path / "task"
    tree(task_dir / "tpl", TEMPLATE)
    config = {
        "driver": "tempdir",
        "template_sources": [{"type": "template_dir", "path": "tpl", "include_patterns": ["dist/*.js"]}],
    }
    box = Sandbox(
        SandboxConfig.model_validate(config),
        task_dir=task_dir,
        task_file=task_dir / "task.yaml",
        artifacts_dir=tmp_path / "out" / "artifacts",
        mode=PreservationMode.DIRECT_WRITE,
        scratch=tmp_path / "scratch",
    )
    root = box.setup()
    try:
        assert (root / "dist" / "bundle.js").is_file() and not (root / "dist" / "map").exists()
    finally:
        box.finish()


def test_an_include_pattern_may_not_leave_the_template():
    with pytest.raises(ValueError, match="relative to the template directory"):
        SandboxConfig.model_validate(
            {"template_sources": [{"type": "template_dir", "path": "t", "include_patterns": ["../x"]}]}
        )


def task_in(task_dir: Path, template: str, **sandbox: object) -> TaskDefinition:
    return TaskDefinition.model_validate(
        {
            "task_id": "t",
            "description": "d",
            "initial_prompt": "p",
            "sandbox": {"template_sources": [{"type": "template_dir", "path": template}], **sandbox},
            "success_criteria": [{"type": "file_exists", "path": "a", "description": "a"}],
        }
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git work tree with shared templates at its root and a task three levels down."""
    root = tmp_path / "suite"
    (root / ".git").mkdir(parents=True)
    tree(root / "templates" / "starter", ["main.py"])
    (root / "tasks" / "area" / "one").mkdir(parents=True)
    tree(tmp_path / "elsewhere", ["main.py"])
    return root


def test_a_template_anywhere_in_the_tasks_repository_is_allowed(repo: Path):
    task_dir = repo / "tasks" / "area" / "one"
    assert repository_root(task_dir) == repo.resolve()
    assert task_problems(task_in(task_dir, "../../../templates/starter"), task_dir) == []


def test_a_template_outside_the_repository_still_needs_allow_host_paths(repo: Path):
    task_dir = repo / "tasks" / "area" / "one"
    (problem,) = task_problems(task_in(task_dir, "../../../../elsewhere"), task_dir)
    assert "outside the task's directory tree and its repository" in problem.message
    assert "allow_host_paths" in problem.message
    assert task_problems(task_in(task_dir, "../../../../elsewhere", allow_host_paths=True), task_dir) == []


def test_run_applies_the_same_repository_rule(repo: Path, tmp_path: Path):
    task_dir = repo / "tasks" / "area" / "one"

    def setup(template: str) -> None:
        config = {"driver": "tempdir", "template_sources": [{"type": "template_dir", "path": template}]}
        box = Sandbox(
            SandboxConfig.model_validate(config),
            task_dir=task_dir,
            task_file=task_dir / "task.yaml",
            artifacts_dir=tmp_path / "out" / str(len(template)),
            mode=PreservationMode.DIRECT_WRITE,
            scratch=tmp_path / "scratch",
        )
        try:
            box.setup()
        finally:
            box.finish()

    setup("../../../templates/starter")
    with pytest.raises(TaskConfigError, match="outside the task's directory tree and its repository"):
        setup("../../../../elsewhere")
