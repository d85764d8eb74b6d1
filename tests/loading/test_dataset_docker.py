"""`${row.x}` in sandbox.docker and template sources: one image, checkout or file set per dataset row."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.engine.experiment_plan import PlanInputs, plan_units
from coder_eval.errors import TaskConfigError
from coder_eval.loading.loader import load_tasks


def write(root: Path, docker: dict[str, Any], rows: list[dict[str, Any]] | None) -> Path:
    doc: dict[str, Any] = {
        "task_id": "swe-list",
        "description": "one instance per row",
        "initial_prompt": "Fix the issue.",
        "sandbox": {"driver": "docker", "docker": docker},
        "success_criteria": [{"type": "run_command", "command": "true", "description": "tests pass"}],
    }
    if rows is not None:
        doc["dataset"] = {"rows": rows}
    path = root / "task.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


ROWS = [
    {"id": "django-1", "image": "swe/django:1", "ref": "abc"},
    {"id": "flask-2", "image": "swe/flask:2", "ref": "def"},
]


def test_each_row_gets_its_own_image_and_build_args(tmp_path: Path) -> None:
    (tmp_path / "env").mkdir()
    write(tmp_path, {"image": "${row.image}", "working_dir": "/testbed"}, ROWS)
    report = load_tasks([str(tmp_path / "task.yaml")])
    assert report.errors == []
    images = {t.row_id: t.definition.sandbox.docker.image for t in report.tasks if t.definition.sandbox.docker}
    assert images == {"django-1": "swe/django:1", "flask-2": "swe/flask:2"}
    units = plan_units(report.tasks, PlanInputs(agent_type="none")).units  # as run resolves them
    resolved = {
        u.task.row_id: u.task.definition.sandbox.docker.image for u in units if u.task.definition.sandbox.docker
    }
    assert resolved == images


def test_build_args_are_substituted_per_row(tmp_path: Path) -> None:
    docker = {"dockerfile_path": "Dockerfile", "build": {"args": {"COMMIT": "${row.ref}", "FIXED": "x"}}}
    write(tmp_path, docker, ROWS)
    report = load_tasks([str(tmp_path / "task.yaml")])
    args = [t.definition.sandbox.docker.build.args for t in report.tasks]  # type: ignore[union-attr]
    assert args == [{"COMMIT": "abc", "FIXED": "x"}, {"COMMIT": "def", "FIXED": "x"}]


def test_a_row_without_the_field_is_a_load_error(tmp_path: Path) -> None:
    write(tmp_path, {"image": "${row.image}"}, [*ROWS, {"id": "no-image"}])
    (error,) = load_tasks([str(tmp_path / "task.yaml")]).errors
    text = error.render()
    assert "row 'no-image'" in text and "${row.image}: key not found" in text and "sandbox.docker" in text


def test_a_placeholder_without_a_dataset_is_refused(tmp_path: Path) -> None:
    write(tmp_path, {"image": "${row.image}"}, None)
    (error,) = load_tasks([str(tmp_path / "task.yaml")]).errors
    assert isinstance(error, TaskConfigError)
    assert "sandbox.docker.image names ${row.x}, but the task has no dataset" in error.render()


@pytest.mark.parametrize("rows", [[*ROWS, {"id": "no-image"}], None])
def test_plan_refuses_what_run_would(tmp_path: Path, rows: list[dict[str, Any]] | None) -> None:
    write(tmp_path, {"image": "${row.image}"}, rows)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "plan", "task.yaml", "-T", "none"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0 and "${row" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_template_sources_take_the_row_but_starter_content_is_left_alone(tmp_path: Path) -> None:
    for name in ("django-1", "flask-2"):
        (tmp_path / "fixtures" / name).mkdir(parents=True)
    path = write(tmp_path, {"image": "${row.image}"}, ROWS)
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["sandbox"]["template_sources"] = [
        {"type": "repo", "url": "https://example.invalid/${row.id}.git", "commit": "${row.ref}"},
        {"type": "template_dir", "path": "fixtures/${row.id}"},
        {"type": "starter_files", "files": [{"path": "${row.id}.js", "content": "const s = `${row.name}`;\n"}]},
    ]
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    report = load_tasks([str(path)])
    assert report.errors == []
    repo, fixture, starter = report.tasks[1].definition.sandbox.template_sources
    assert (repo.url, repo.commit) == ("https://example.invalid/flask-2.git", "def")  # type: ignore[union-attr]
    assert fixture.path == "fixtures/flask-2"  # type: ignore[union-attr]
    (file,) = starter.files  # type: ignore[union-attr]
    assert file.path == "flask-2.js" and file.content == "const s = `${row.name}`;\n"


def test_plan_checks_each_rows_template_directory(tmp_path: Path) -> None:
    (tmp_path / "fixtures" / "django-1").mkdir(parents=True)  # flask-2 has none
    path = write(tmp_path, {"image": "${row.image}"}, ROWS)
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["sandbox"]["template_sources"] = [{"type": "template_dir", "path": "fixtures/${row.id}"}]
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "plan", "task.yaml", "-T", "none"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = " ".join(proc.stdout.split())
    assert proc.returncode != 0 and "template directory 'fixtures/flask-2' does not exist" in text, text
    assert "fixtures/django-1' does not exist" not in text
