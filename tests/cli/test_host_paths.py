"""Host paths a task names stay in its directory tree: `plan` and `run` refuse the same ones."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from clirun import cli

from coder_eval.models.host_paths import confined


def _task(root: Path, template: str, **sandbox: object) -> Path:
    folder = root / "suite" / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    doc = {
        "task_id": "paths",
        "description": "host paths",
        "initial_prompt": "x",
        "agent": {"type": "none"},
        "sandbox": {"driver": "tempdir", "template_sources": [{"type": "template_dir", "path": template}], **sandbox},
        "success_criteria": [{"type": "file_exists", "path": "passwd", "description": "copied"}],
    }
    path = folder / "task.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


@pytest.mark.parametrize("template", ["/etc", "../../../../../../../../etc", "~/.ssh"])
def test_plan_and_run_refuse_a_host_directory(tmp_path: Path, template: str) -> None:
    task = _task(tmp_path, template)
    plan = cli("plan", task, cwd=tmp_path)
    assert plan.returncode == 1 and "outside the task's directory tree" in plan.stdout, plan.stdout
    run = cli("run", task, "--run-dir", tmp_path / "run", cwd=tmp_path)
    # run applies plan's checks before it starts anything: the same message, exit 2, nothing copied
    assert run.returncode == 2 and "outside the task's directory tree" in run.stdout + run.stderr
    assert not list((tmp_path / "run").rglob("task.json"))
    assert not list((tmp_path / "run").rglob("passwd"))


def test_a_shared_sibling_directory_is_allowed(tmp_path: Path) -> None:
    shared = tmp_path / "suite" / "templates" / "starter"
    shared.mkdir(parents=True)
    (shared / "passwd").write_text("not the real one\n")
    task = _task(tmp_path, "../templates/starter")
    assert cli("plan", task, cwd=tmp_path).returncode == 0
    assert cli("run", task, "--run-dir", tmp_path / "run", cwd=tmp_path).returncode == 0


def test_allow_host_paths_lifts_the_rule(tmp_path: Path) -> None:
    assert confined("/etc", tmp_path, allow=True)[1] is None
    assert confined("/etc", tmp_path, allow=False)[1] is not None
    task = _task(tmp_path, "/etc/ssl", allow_host_paths=True)
    assert cli("plan", task, cwd=tmp_path).returncode == 0


def test_a_reference_outside_the_task_tree_is_refused_by_plan_and_run(tmp_path: Path) -> None:
    task = _task(tmp_path, "../templates/none")
    (tmp_path / "suite" / "templates" / "none").mkdir(parents=True)
    doc = yaml.safe_load(task.read_text())
    doc["reference"] = {"directory": "../../../../../../../../etc"}
    task.write_text(yaml.safe_dump(doc))
    plan = cli("plan", task, cwd=tmp_path)
    assert plan.returncode == 1 and "reference.directory" in plan.stdout, plan.stdout
    run = cli("run", task, "--run-dir", tmp_path / "run", cwd=tmp_path)
    assert run.returncode == 2 and "outside the task's directory tree" in run.stdout + run.stderr
    assert not list((tmp_path / "run").rglob("passwd"))
