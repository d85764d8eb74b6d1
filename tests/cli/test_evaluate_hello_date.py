"""`coder-eval evaluate` on the conformance hello_date task with hand-made work dirs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import cli

pytestmark = pytest.mark.slow

GOOD = "import datetime\nprint('Hello, Claude!')\nprint(datetime.date.today().isoformat())\n"
NO_DATETIME = "import time\nprint('Hello, Claude!')\nprint(time.strftime('%Y-%m-%d'))\n"
BROKEN = "import datetime\nprint('Hello, Claude!'\n"


@pytest.mark.parametrize(
    ("app", "scores", "weighted", "status", "code"),
    [
        (GOOD, [1.0, 1.0, 1.0], 1.0, "SUCCESS", 0),
        (NO_DATETIME, [1.0, 0.5, 1.0], 2.5 / 3, "FAILURE", 1),  # one of two includes found
        (BROKEN, [1.0, 1.0, 0.0], 2 / 3, "FAILURE", 1),  # contains the strings but does not run
        (None, [0.0, 0.0, 0.0], 0.0, "FAILURE", 1),  # nothing written
    ],
)
def test_scores_match_the_spec(tmp_path, conformance, app, scores, weighted, status, code):
    work = tmp_path / "work"
    work.mkdir()
    if app is not None:
        (work / "app.py").write_text(app)
    run_dir = tmp_path / "run"
    proc = cli("evaluate", conformance / "tasks" / "hello_date.yaml", work, "--run-dir", run_dir, cwd=tmp_path)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert status in proc.stdout
    record = json.loads((run_dir / "default" / "hello_date_smoke_test" / "00" / "task.json").read_text())
    assert [c["score"] for c in record["success_criteria_results"]] == pytest.approx(scores)
    assert record["weighted_score"] == pytest.approx(weighted)
    assert record["final_status"] == status
    summary = json.loads((run_dir / "run.json").read_text())
    assert summary["tasks_run"] == 1
    assert summary["pass_rate"] == (1.0 if status == "SUCCESS" else 0.0)
    assert summary["total_cost_usd"] == 0.0 and summary["cost_complete"] is True
    assert (run_dir / "run.md").is_file()
    assert (run_dir / "default" / "hello_date_smoke_test" / "00" / "task.log").is_file()


def test_grades_a_copy_by_default_and_in_place_on_request(tmp_path, conformance):
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text(GOOD)
    task = conformance / "tasks" / "hello_date.yaml"
    run_dir = tmp_path / "copy"
    assert cli("evaluate", task, work, "--run-dir", run_dir, cwd=tmp_path).returncode == 0
    copy = run_dir / "default" / "hello_date_smoke_test" / "00" / "artifacts" / "app.py"
    assert copy.read_text() == GOOD
    in_place = tmp_path / "inplace"
    assert cli("evaluate", task, work, "--in-place", "--run-dir", in_place, cwd=tmp_path).returncode == 0
    record = json.loads((in_place / "default" / "hello_date_smoke_test" / "00" / "task.json").read_text())
    assert Path(record["sandbox_path"]) == work.resolve()
    assert not (in_place / "default" / "hello_date_smoke_test" / "00" / "artifacts").exists()


def test_no_preserve_removes_the_copy(tmp_path, conformance):
    work = tmp_path / "work"
    work.mkdir()
    run_dir = tmp_path / "run"
    cli(
        "evaluate", conformance / "tasks" / "hello_date.yaml", work, "--run-dir", run_dir, "--no-preserve", cwd=tmp_path
    )
    assert not (run_dir / "default" / "hello_date_smoke_test" / "00" / "artifacts").exists()


def test_default_run_dir_is_timestamped_with_latest_link(tmp_path, conformance):
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text(GOOD)
    assert cli("evaluate", conformance / "tasks" / "hello_date.yaml", work, cwd=tmp_path).returncode == 0
    latest = tmp_path / "runs" / "latest"
    assert latest.is_symlink() and (latest / "run.json").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.yaml", "."], "file not found"),
        (["task.yaml", "nowhere"], "does not exist"),
    ],
)
def test_usage_errors_exit_2_without_traceback(tmp_path, args, message):
    (tmp_path / "task.yaml").write_text(
        "task_id: t\ndescription: d\ninitial_prompt: p\n"
        "success_criteria: [{type: file_exists, path: a, description: a}]\n"
    )
    proc = cli("evaluate", *args, cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
