"""Records written by the reference system (0.11 and 0.12 shapes) read, with what was mapped said.

The corpus (tests/fixtures/reference_runs) was written by hand from the reference's documented
result schema; see its README.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from coder_eval.board.api import BoardApi
from coder_eval.board.catalog import RunCatalog
from coder_eval.models.results import EvaluationResult
from coder_eval.records.layout import find_task_results
from coder_eval.records.legacy import conversion_lines, read_task_record
from coder_eval.records.store import read_run_summary, read_task_result, write_task_result
from coder_eval.records.tolerant import pattern, unknown_keys, validate_tolerantly

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "reference_runs"
RECORDS = sorted(CORPUS.rglob("task.json"))


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    target = tmp_path / "runs"
    shutil.copytree(CORPUS, target, ignore=shutil.ignore_patterns("README.md"))
    return target


def notes_of(rel: str) -> list[str]:
    notes = read_task_result(CORPUS / rel).record_notes
    return notes.lines() if notes is not None else []


def test_corpus_covers_both_lines() -> None:
    assert len(RECORDS) == 6
    assert {json.loads(p.read_text()).get("environment_info", {}).get("coder_eval_version") for p in RECORDS} == {
        "0.11.4",
        "0.12.1",
    }


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: str(p.relative_to(CORPUS).parent))
def test_every_record_reads(path: Path) -> None:
    raw = json.loads(path.read_text())
    result = read_task_result(path)
    assert result.task_id == raw["task_id"]
    assert result.final_status.value == raw["final_status"]
    assert result.weighted_score == raw["weighted_score"]
    turns = raw.get("iterations", raw.get("turns", []))
    assert len(result.iterations) == len(turns)
    assert len(result.success_criteria_results) == len(raw["success_criteria_results"])


def test_agentless_row_with_null_token_usage() -> None:
    result = read_task_result(CORPUS / "run-0.12/baseline/lint_only/00/task.json")
    assert result.iterations[0].token_usage.total_tokens == 0
    assert any("token_usage was null" in line for line in notes_of("run-0.12/baseline/lint_only/00/task.json"))


def test_error_details_object_kept_as_json_text() -> None:
    result = read_task_result(CORPUS / "run-0.12/with-skill/hello_date/00/task.json")
    assert result.error_details is not None
    assert json.loads(result.error_details)["attempts"] == 3
    assert result.iterations[0].crashed and result.post_failure_criteria_results[1].evaluation_status == "not_evaluated"
    assert "mapped: error_details was an object: kept as its JSON text" in notes_of(
        "run-0.12/with-skill/hello_date/00/task.json"
    )


def test_0_11_shape_legacy_keys_and_weights() -> None:
    result = read_task_result(CORPUS / "run-0.11/default/word_count/00/task.json")
    assert result.iterations[0].token_usage.uncached_input_tokens == 14000  # input_tokens only, read as uncached
    weights = [(r.criterion_type, r.weight) for r in result.success_criteria_results]
    assert weights == [("file_exists", 1.0), ("run_command", 1.0), ("file_contains", 0.0)]  # informational -> 0
    assert result.success_criteria_results[1].details == ""  # details: null
    lines = notes_of("run-0.11/default/word_count/00/task.json")
    assert "not mapped: turns[].commands[].timestamp: not carried (2 places)" in lines


def test_what_does_not_fit_is_named_not_dropped_silently() -> None:
    result = read_task_result(CORPUS / "run-0.12/baseline/hello_date/00/task.json")
    assert [c.status for c in result.iterations[0].commands] == ["unknown", "success"]  # "completed" is not ours
    lines = notes_of("run-0.12/baseline/hello_date/00/task.json")
    assert any(line.startswith("not mapped: iterations[].commands[].status") for line in lines)
    assert "not mapped: iterations[].provider_call_costs[].actual_cost_usd: not carried (2 places)" in lines
    judge = result.success_criteria_results[1]
    assert judge.result_kind == "judge" and json.loads(judge.findings[0])["severity"] == "minor"  # type: ignore[union-attr]
    assert result.early_stop is not None and result.early_stop.reason == "criterion_passed"


def test_our_own_records_get_no_notes(tmp_path: Path) -> None:
    ours = read_task_result(CORPUS / "run-0.12/baseline/hello_date/00/task.json").model_copy(
        update={"record_notes": None}
    )
    write_task_result(tmp_path, ours)
    assert read_task_result(tmp_path / "task.json").record_notes is None


def test_notes_survive_a_rewrite(tmp_path: Path) -> None:
    converted = read_task_result(CORPUS / "run-0.12/baseline/lint_only/00/task.json")
    write_task_result(tmp_path, converted)
    again = read_task_result(tmp_path / "task.json")
    assert again.record_notes == converted.record_notes


def test_a_required_field_missing_is_still_an_error() -> None:
    with pytest.raises(ValueError, match="final_status"):
        read_task_record({"task_id": "x", "started_at": "2026-01-01T00:00:00Z"})


def test_tolerant_pass_removes_only_what_does_not_fit() -> None:
    raw = {
        "task_id": "t",
        "started_at": "2026-01-01T00:00:00Z",
        "final_status": "SUCCESS",
        "iterations": [{"iteration": 1, "commands": [{"tool_name": "x", "status": "weird"}, {"status": "success"}]}],
    }
    assert unknown_keys(EvaluationResult, {"task_id": "t", "mystery": 1, "empty": []}) == {"mystery": 1}
    result, removed = validate_tolerantly(EvaluationResult, raw)
    assert [c.tool_name for c in result.iterations[0].commands] == ["x"]  # the command without a name is gone
    assert result.iterations[0].commands[0].status == "unknown"
    assert {key.split(" ")[0] for key in removed} == {"iterations[].commands[].status", "iterations[].commands[]"}
    assert pattern(("iterations", 0, "commands", 3, "status")) == "iterations[].commands[].status"


def test_run_summaries_of_both_lines_read() -> None:
    old = read_run_summary(CORPUS / "run-0.11")
    assert (old.tasks_run, old.tasks_succeeded, old.pass_rate) == (3, 1, pytest.approx(1 / 3))
    assert old.skipped_tasks[0].path == "tasks/flaky.yaml"
    new = read_run_summary(CORPUS / "run-0.12")
    assert new.agent_cost_usd == pytest.approx(0.044035) and new.judge_cost_usd == pytest.approx(0.0036)


def test_conversion_lines_merge_places_over_records() -> None:
    results = [read_task_result(p) for p in RECORDS]
    lines = conversion_lines(r.record_notes for r in results)
    weights = next(line for line in lines if "carry no weight" in line)
    assert weights.startswith("5 records, 11 places: mapped:")  # 2 + 3 (0.11), 3 + 1 + 2 (0.12)


def test_board_shows_reference_runs_and_their_conversions(runs: Path) -> None:
    api = BoardApi(RunCatalog([runs]))
    listed = {d["run_id"] for d in api.get("runs")}
    assert listed == {"run-0.11", "run-0.12"}
    page = api.get("runs/run-0.12")
    assert any("token_usage was null" in w for w in page["warnings"])
    task = api.get("runs/run-0.12/task/baseline/lint_only/00")
    assert task["result"]["record_notes"]["mapped"]


def test_every_corpus_record_is_found_by_the_record_walk() -> None:
    assert len(find_task_results(CORPUS / "run-0.11")) == 3
    assert len(find_task_results(CORPUS / "run-0.12")) == 3
