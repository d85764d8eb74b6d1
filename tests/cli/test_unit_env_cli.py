"""Through the CLI: `plan` names each task's Python environment, and records say which one a unit had.

A dataset's rows each get their own venv cloned from one shared environment (the same key in every
record), `python` inside a row is that venv, and `python: null` is recorded as the host's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from clirun import cli

pytestmark = pytest.mark.slow


def write_task(directory: Path, name: str, sandbox: dict[str, Any] | None = None) -> Path:
    doc: dict[str, Any] = {
        "task_id": name,
        "description": f"{name} task",
        "agent": {"type": "none"},
        "dataset": {"rows": [{"id": "r1"}, {"id": "r2"}]},
        "pre_run": [{"command": "python3 -c 'import sys; print(sys.prefix)' > prefix.txt"}],
        "success_criteria": [{"type": "file_exists", "path": "prefix.txt", "description": "wrote its prefix"}],
    }
    if sandbox is not None:
        doc["sandbox"] = sandbox
    path = directory / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def python_envs(run_dir: Path) -> dict[str, tuple[dict[str, Any], str]]:
    """Per row: the record's `environment_info.python_env` and the `sys.prefix` its pre_run printed."""
    out = {}
    for path in run_dir.rglob("task.json"):
        if "artifacts" in path.parts:
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        prefix = (path.parent / "artifacts" / "prefix.txt").read_text(encoding="utf-8").strip()
        out[record["task_id"]] = (record["environment_info"]["python_env"], prefix)
    return out


def test_plan_names_each_tasks_environment(tmp_path: Path) -> None:
    default = write_task(tmp_path, "own")
    null = write_task(tmp_path, "host", {"python": None, "node": {}})
    wheel = write_task(tmp_path, "wheel", {"python": {"env_packages": ["./probe-0.1-py3-none-any.whl"]}})
    proc = cli("plan", default, null, wheel, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = " ".join(proc.stdout.split())  # rich may wrap a long note
    version = sys.version.split()[0]
    assert f"sandbox.python: each unit gets its own .venv (pip) on Python {version}" in text
    assert "cloned from one built once per task and shown read-only" in text
    assert "own .venv (pip, ./probe-0.1-py3-none-any.whl)" in text
    assert "sandbox.python: null: units run the host's interpreter" in text
    assert "sandbox.node: npm installs no packages into each unit's workspace" in text
    assert "`npm install -g` goes to the unit's own prefix" in text


@pytest.mark.parametrize("driver", ["tempdir", "auto"])
def test_records_name_each_units_environment(tmp_path: Path, driver: str) -> None:
    task = write_task(tmp_path, "own")
    run_dir = tmp_path / "run"
    proc = cli("run", task, "--driver", driver, "--run-dir", run_dir, "-j", "2", cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = python_envs(run_dir)
    assert sorted(rows) == ["own/r1", "own/r2"]
    for info, prefix in rows.values():
        assert info["kind"] == "venv" and info["cloned"] is True, info
        assert prefix == info["venv"] and prefix.endswith("/.venv")  # `python3` is the unit's own
        assert [p for p in info["packages"] if p.startswith("pip==")], info
        assert info["installed_by_unit"] == [] and info["python_version"] == sys.version.split()[0]
    (first, _), (second, _) = rows.values()
    assert first["shared_environment"] == second["shared_environment"] and first["venv"] != second["venv"]


def test_records_name_the_hosts_interpreter_for_python_null(tmp_path: Path) -> None:
    task = write_task(tmp_path, "host", {"python": None})
    run_dir = tmp_path / "run"
    proc = cli("run", task, "--driver", "tempdir", "--run-dir", run_dir, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for info, prefix in python_envs(run_dir).values():
        assert info["kind"] == "host", info
        assert not prefix.endswith("/.venv")


POISON = """#!/bin/sh
P=$(python -c 'import os, pip; print(os.path.dirname(pip.__file__))')
chmod u+w "$P/__init__.py" && echo '# poisoned' >> "$P/__init__.py"
"""


def test_a_regrade_that_rewrites_the_shared_environment_is_no_grade(tmp_path: Path) -> None:
    """`evaluate RUN_DIR` under tempdir runs the workspace's code on the host, as a live unit does: a
    criterion that rewrites the shared environment it was shown leaves no trusted grade."""
    (tmp_path / "template").mkdir()
    (tmp_path / "template" / "poison.sh").write_text(POISON, encoding="utf-8")
    task = {
        "task_id": "poison",
        "description": "grading runs the workspace's own script",
        "agent": {"type": "none"},
        "sandbox": {"driver": "tempdir", "template_sources": [{"type": "template_dir", "path": "template"}]},
        "success_criteria": [{"type": "run_command", "command": "sh poison.sh", "description": "its check"}],
    }
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump(task), encoding="utf-8")
    run_dir = tmp_path / "run"
    executed = cli("execute", path, "--run-dir", run_dir, cwd=tmp_path, timeout=300)
    assert executed.returncode == 0, executed.stdout + executed.stderr
    graded = cli("evaluate", run_dir, "--allow-recorded-commands", cwd=tmp_path, timeout=300)
    text = graded.stdout + graded.stderr
    assert graded.returncode != 0, text
    assert "shared Python environment" in " ".join(text.split()) and "cannot be trusted" in text, text
