"""Old runs open through the CLI, and a run is re-graded with an edited task file.

`report`, `aggregate` and `evaluate RUN_DIR` over the hand-written corpus of reference-format
run directories (tests/fixtures/reference_runs); `evaluate TASK.yaml RUN_DIR[/unit]` over the
same runs and over a run of our own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from clirun import cli

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "reference_runs"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    target = tmp_path / "runs"
    shutil.copytree(CORPUS, target, ignore=shutil.ignore_patterns("README.md"))
    return target


def test_report_reads_a_reference_run_and_says_what_it_mapped(runs: Path, tmp_path: Path) -> None:
    proc = cli("report", runs / "run-0.11", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "hello_date" in proc.stdout and "word_count" in proc.stdout and "build_broken" in proc.stdout
    assert "## Records read from another format" in proc.stdout
    assert "turns[].commands[].timestamp: not carried" in proc.stdout
    assert "some records were written in another format" in proc.stderr
    html = cli("report", runs / "run-0.12", "-f", "html", cwd=tmp_path)
    assert html.returncode == 0, html.stderr
    assert "Records read from another format" in (runs / "run-0.12" / "run.html").read_text()
    junit = cli("report", runs / "run-0.12", "-f", "junit", cwd=tmp_path)
    assert junit.returncode == 0, junit.stderr


def test_aggregate_rebuilds_run_json_with_the_conversions(runs: Path, tmp_path: Path) -> None:
    run = runs / "run-0.12"
    proc = cli("aggregate", run, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "3 tasks: 2 succeeded, 0 failed, 1 errors" in proc.stdout
    summary = json.loads((run / "run.json").read_text())
    assert any("token_usage was null" in line for line in summary["record_conversions"])
    assert any("error_details was an object" in line for line in summary["record_conversions"])
    assert summary["agent_cost_usd"] == pytest.approx(0.044035)
    assert "Records read from another format" in (run / "run.md").read_text()


def test_evaluate_run_dir_regrades_what_it_can_and_says_why_not_the_rest(runs: Path, tmp_path: Path) -> None:
    run = runs / "run-0.11"
    proc = cli("evaluate", run, cwd=tmp_path)
    assert proc.returncode == 1  # two records hold no task config to grade with
    assert "hello_date SUCCESS 1.000" in proc.stdout
    assert "holds no task configuration" in proc.stderr and "coder-eval evaluate TASK.yaml" in proc.stderr
    unit = run / "default" / "hello_date" / "00"
    assert (unit / "task.execute.json").read_text() == (CORPUS / "run-0.11/default/hello_date/00/task.json").read_text()
    graded = json.loads((unit / "task.json").read_text())
    assert graded["record_notes"]["not_mapped"]  # still says what the original record could not carry


def test_evaluate_run_dir_refuses_recorded_judges_without_the_flag(runs: Path, tmp_path: Path) -> None:
    proc = cli("evaluate", runs / "run-0.12", cwd=tmp_path)
    assert proc.returncode != 0
    assert "llm_judge" in proc.stderr and "--allow-recorded-commands" in proc.stderr


def _edited_task(tmp_path: Path, task_id: str = "hello_date", pattern: str = r"^\d{4}-\d{2}-\d{2}$") -> Path:
    task = tmp_path / "edited" / "hello_date.yaml"
    task.parent.mkdir(exist_ok=True)
    task.write_text(
        yaml.safe_dump(
            {
                "task_id": task_id,
                "description": "the date, graded more strictly",
                "initial_prompt": "Write today's date in ISO format to date.txt",
                "success_criteria": [
                    {"type": "file_matches_regex", "path": "date.txt", "pattern": pattern, "description": "ISO date"},
                    {"type": "run_command", "command": "test -s date.txt", "description": "not empty"},
                    {"type": "command_executed", "tool_name": "Bash", "description": "used the shell"},
                ],
            }
        )
    )
    return task


def test_edited_task_regrades_a_reference_run_without_the_flag(runs: Path, tmp_path: Path) -> None:
    run = runs / "run-0.12"
    proc = cli("evaluate", _edited_task(tmp_path), run, cwd=tmp_path)
    assert "hello_date [baseline] SUCCESS 1.000" in proc.stdout, proc.stdout + proc.stderr
    assert "hello_date [with-skill] ERROR" in proc.stdout  # the crash is an execution fact, kept
    assert "lint_only (1)" in proc.stderr  # another task's record: left as it was
    baseline = json.loads((run / "baseline/hello_date/00/task.json").read_text())
    types = [r["criterion_type"] for r in baseline["success_criteria_results"]]
    assert types == ["file_matches_regex", "run_command", "command_executed"]  # the edited criteria
    assert any("operator's task file" in line for line in baseline["record_notes"]["mapped"])
    assert (run / "baseline/hello_date/00/task.execute.json").is_file()
    lint = json.loads((run / "baseline/lint_only/00/task.json").read_text())
    assert lint == json.loads((CORPUS / "run-0.12/baseline/lint_only/00/task.json").read_text())
    summary = json.loads((run / "run.json").read_text())
    assert summary["tasks_run"] == 3


def test_edited_task_regrades_one_unit_and_can_fail_it(runs: Path, tmp_path: Path) -> None:
    unit = runs / "run-0.12" / "baseline" / "hello_date" / "00"
    strict = _edited_task(tmp_path, pattern=r"^1999-")
    proc = cli("evaluate", strict, unit, cwd=tmp_path)
    assert proc.returncode == 1
    assert "hello_date [baseline] FAILURE" in proc.stdout, proc.stdout + proc.stderr
    assert "rebuilt" in proc.stdout and str(runs / "run-0.12") in proc.stdout  # the run's own run.json
    other = json.loads((runs / "run-0.12/with-skill/hello_date/00/task.json").read_text())
    assert "record_notes" not in other  # a unit path grades that unit only


def test_edited_task_refuses_a_run_of_another_task(runs: Path, tmp_path: Path) -> None:
    proc = cli("evaluate", _edited_task(tmp_path, task_id="goodbye_date"), runs / "run-0.12", cwd=tmp_path)
    assert proc.returncode != 0
    assert "task id does not match the run" in proc.stderr
    assert "goodbye_date" in proc.stderr and "hello_date" in proc.stderr
    assert not (runs / "run-0.12/baseline/hello_date/00/task.execute.json").exists()  # nothing was touched


def test_edited_task_regrades_our_own_run(tmp_path: Path) -> None:
    """The same on a run of ours (from `evaluate TASK WORKDIR`), graded again with an edited copy of the task."""
    task = REPO / "examples" / "tasks" / "word_count" / "task.yaml"
    solution = REPO / "examples" / "solutions" / "word_count"
    run = tmp_path / "run"
    first = cli("evaluate", task, solution, "--run-dir", run, cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    shutil.copytree(task.parent, tmp_path / "word_count")
    edited = tmp_path / "word_count" / "task.yaml"
    document = yaml.safe_load(edited.read_text())
    document["success_criteria"] = [
        {"type": "file_exists", "path": "no-such-file.txt", "description": "a file the solution never wrote"}
    ]
    edited.write_text(yaml.safe_dump(document))
    proc = cli("evaluate", edited, run, cwd=tmp_path)
    assert proc.returncode == 1 and "FAILURE" in proc.stdout, proc.stdout + proc.stderr
    record = json.loads(next(run.rglob("task.json")).read_text())
    assert [r["criterion_type"] for r in record["success_criteria_results"]] == ["file_exists"]
    assert next(run.rglob("task.execute.json")).is_file()
