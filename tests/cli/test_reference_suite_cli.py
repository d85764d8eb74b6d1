"""A reference-style suite through the CLI: warnings in plan, run, lint and task.log; migrate --check in CI."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from clirun import cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "migrate"))
from reference_corpus import CREDENTIALS, FORMS, write_corpus

pytestmark = pytest.mark.slow

WARNED = (
    "unknown_key.yaml: owner (line 4): unknown top-level key, ignored "
    "(it is not a task field; remove it if it is not meant for you)"
)


def test_migrate_check_then_migrate_then_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CREDENTIALS:
        monkeypatch.setenv(name, "sk-test-not-used")
    files = write_corpus(tmp_path / "suite")
    tasks = tmp_path / "suite" / "tasks"
    before = cli("plan", tasks, cwd=tmp_path)
    assert before.returncode == 1 and "coder-eval migrate TASK.yaml" in before.stdout
    check = cli("migrate", tasks, "--check", cwd=tmp_path)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "-  code: |" in check.stdout and "+  directory: reference" in check.stdout
    assert f"5 of {len(FORMS)} task files would change" in check.stderr
    assert files["reference_code"].read_text().count("code: |") == 1  # --check writes nothing
    done = cli("migrate", tasks, "-q", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == "", done.stderr
    assert f"5 of {len(FORMS)} task files rewritten" in done.stderr
    assert cli("migrate", tasks, "--check", cwd=tmp_path).returncode == 0
    after = cli("plan", tasks, cwd=tmp_path)
    assert after.returncode == 0, after.stdout
    assert f"{len(FORMS)} of {len(FORMS)} task files valid" in after.stdout
    assert "    ! owner (line 4): unknown top-level key, ignored" in after.stdout


def test_load_warnings_show_in_run_lint_and_task_log(tmp_path: Path) -> None:
    files = write_corpus(tmp_path / "suite")
    task = files["unknown_key"]
    run = cli("run", task, "-T", "none", "--driver", "tempdir", "--run-dir", "run", cwd=tmp_path)
    assert f"warning: {task}: owner (line 4)" in run.stderr, run.stderr
    (log,) = (tmp_path / "run").rglob("task.log")
    assert f"warning: {WARNED}" in log.read_text()
    lint = cli("lint", task, "--static", "-f", "json", cwd=tmp_path)
    assert '"rule_id": "CE107"' in lint.stdout and "unknown top-level key" in lint.stdout
