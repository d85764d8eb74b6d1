"""`report` and `aggregate` over a run directory produced by `evaluate`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from clirun import cli

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TASK = REPO / "examples" / "tasks" / "word_count" / "task.yaml"
SOLUTION = REPO / "examples" / "solutions" / "word_count"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    target = tmp_path / "run"
    proc = cli("evaluate", TASK, SOLUTION, "--run-dir", target, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target


def test_example_passes_all_nine_criteria(run_dir: Path):
    record = json.loads((run_dir / "default" / "word-count" / "00" / "task.json").read_text())
    assert len(record["success_criteria_results"]) == 9
    outcomes = [(c["criterion_type"], c["evaluation_status"], c["gating"]) for c in record["success_criteria_results"]]
    assert ("classification_match", "evaluated", False) in outcomes
    assert record["final_status"] == "SUCCESS"


def test_report_markdown_to_stdout_and_file(run_dir: Path, tmp_path: Path):
    proc = cli("report", run_dir, cwd=tmp_path)
    assert proc.returncode == 0 and "word-count" in proc.stdout
    out = tmp_path / "summary.md"
    assert cli("report", run_dir, "-o", out, cwd=tmp_path).returncode == 0
    assert "word-count" in out.read_text()


def test_report_html_is_self_contained(run_dir: Path, tmp_path: Path):
    assert cli("report", run_dir, "-f", "html", cwd=tmp_path).returncode == 0
    page = (run_dir / "run.html").read_text()
    task_page = (run_dir / "default" / "word-count" / "00" / "task.html").read_text()
    for text in (page, task_page):
        assert "<html" in text and "word-count" in text
        assert "http://" not in text.replace("http://www.w3.org", "") and 'src="http' not in text


def test_report_junit(run_dir: Path, tmp_path: Path):
    out = tmp_path / "junit.xml"
    assert cli("report", run_dir, "-f", "junit", "-o", out, cwd=tmp_path).returncode == 0
    root = ET.parse(out).getroot()
    cases = root.findall(".//testcase")
    assert len(cases) == 1 and cases[0].get("name") == "word-count"
    assert cli("report", run_dir, "-f", "junit", cwd=tmp_path).returncode == 0
    assert (run_dir / "junit.xml").is_file()


def test_aggregate_rebuilds_a_deleted_summary(run_dir: Path, tmp_path: Path):
    original = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").unlink()
    (run_dir / "run.md").unlink()
    proc = cli("aggregate", run_dir, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rebuilt = json.loads((run_dir / "run.json").read_text())
    for key in ("tasks_run", "tasks_succeeded", "pass_rate", "total_cost_usd", "cost_complete"):
        assert rebuilt[key] == original[key]
    assert (run_dir / "run.md").is_file()
    merged = tmp_path / "merged"
    assert cli("aggregate", run_dir, "-o", merged, cwd=tmp_path).returncode == 0
    assert (merged / "run.json").is_file()


def test_report_on_missing_dir_is_a_usage_error(tmp_path: Path):
    proc = cli("report", tmp_path / "nope", cwd=tmp_path)
    assert proc.returncode == 2 and "does not exist" in proc.stderr


def test_no_temp_files_left_behind(run_dir: Path):
    assert not [p for p in run_dir.rglob("*.tmp")]
