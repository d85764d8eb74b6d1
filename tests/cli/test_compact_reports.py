"""The end-of-run files are the same whether built from full records or from what a run keeps in memory."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from clirun import cli

from coder_eval.config.experiments import load_experiment
from coder_eval.engine.report_files import junit_text, write_experiment_reports, write_junit, write_run_files
from coder_eval.loading.loader import load_tasks
from coder_eval.models.experiment import ExperimentDefinition
from coder_eval.models.results import CommandResult, CriterionResult, EvaluationResult
from coder_eval.models.run import SkippedTask
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import CommandTelemetry, TokenUsage, TurnRecord
from coder_eval.records.compact import HeldResults, report_copy
from coder_eval.records.store import read_run_summary, read_task_results
from coder_eval.suites import build_suite_rollups, suite_gate_entries

START = datetime(2026, 11, 30, 10, 0, 0, tzinfo=UTC)
END = datetime(2026, 11, 30, 10, 5, 0, tzinfo=UTC)


def _write_all(
    target: Path, results: list[EvaluationResult] | HeldResults, experiment: ExperimentDefinition
) -> dict[str, str]:
    """Every end-of-run file built from `results`, as {relative path: text}.

    A list goes through the builders `aggregate` and `report` use; `HeldResults` through the
    streamed ones of a live run (rows read back one at a time, files written as they come)."""
    target.mkdir(parents=True)
    summary = write_run_files(
        target, results, run_id="r", start_time=START, end_time=END, max_parallel=2, planned=len(results)
    )
    write_experiment_reports(target, experiment, results, 300.0)
    if isinstance(results, HeldResults):
        write_junit(target / "junit.xml", summary, results)
    else:
        (target / "junit.xml").write_text(junit_text(target, summary, results), encoding="utf-8")
    files = {str(p.relative_to(target)): p.read_text(encoding="utf-8") for p in target.rglob("*") if p.is_file()}
    return files


def _experiment(results: list[EvaluationResult]) -> ExperimentDefinition:
    variants = sorted({r.variant_id for r in results}) or ["default"]
    return ExperimentDefinition.model_validate(
        {"experiment_id": "compact", "variants": [{"variant_id": v} for v in variants]}
    )


def _agent_result(task_id: str, status: FinalStatus, replicate: int, **fields: object) -> EvaluationResult:
    turn = TurnRecord(
        iteration=1,
        user_input="do the thing " * 50,
        agent_output="done " * 100,
        duration_seconds=3.0,
        num_turns=4,
        assistant_turn_count=3,
        token_usage=TokenUsage(uncached_input_tokens=900, output_tokens=80),
        commands=[
            CommandTelemetry(tool_name="Bash", parameters={"command": "x" * 500}, result_summary="y" * 300, sequence=n)
            for n in range(3)
        ],
    )
    values: dict[str, object] = {
        "task_id": task_id,
        "variant_id": "treatment" if replicate % 2 else "default",
        "replicate_index": replicate,
        "final_status": status,
        "started_at": START,
        "completed_at": END,
        "duration_seconds": 12.0 + replicate,
        "weighted_score": 0.5 if status is FinalStatus.FAILURE else 1.0,
        "iteration_count": 1,
        "iterations": [turn, turn.model_copy(update={"iteration": 2, "agent_output": "  "})],
        "total_token_usage": TokenUsage(uncached_input_tokens=1800, output_tokens=160, total_cost_usd=0.02),
        "judge_cost_usd": 0.001,
        "agent_config": {"type": "claude-code", "model": "m"},
        "environment_info": {"python": "3.12"},
        "task_config": {
            "resolved": {
                "prompt": "p" * 2000,
                "run_limits": {"expected_turns": 3, "max_turns": 9},
                "sandbox": {"driver": "tempdir", "python": {"env_packages": ["requests"]}, "node": {"packages": ["x"]}},
            },
            "source_yaml": "task_id: t\n" * 100,
        },
        "success_criteria_results": [
            CriterionResult(criterion_type="file_exists", description="wrote it", score=1.0),
            CriterionResult(criterion_type="run_command", description="tests", score=0.0, details="2 failed"),
        ],
        "pre_run_results": [CommandResult(command="make", exit_code=0, stdout="z" * 4000)],
        "error_details": "Traceback ..." if status is FinalStatus.ERROR else None,
        "error_message": "boom" if status is FinalStatus.ERROR else None,
        "error_log_tail": "last lines" if status is FinalStatus.ERROR else None,
    }
    values.update(fields)
    return EvaluationResult.model_validate(values)


def test_builders_read_nothing_the_compact_copy_leaves_out(tmp_path: Path):
    statuses = [FinalStatus.SUCCESS, FinalStatus.FAILURE, FinalStatus.ERROR, FinalStatus.TIMEOUT]
    full = [_agent_result(f"t{i % 2}", s, i) for i, s in enumerate(statuses)]
    compact = [report_copy(r) for r in full]
    assert len(compact[0].model_dump_json()) < len(full[0].model_dump_json()) / 3
    old = _write_all(tmp_path / "full", full, _experiment(full))
    new = _write_all(tmp_path / "compact", compact, _experiment(full))
    assert {"run.json", "run.md", "experiment.json", "junit.xml", "experiment.md"} <= set(old)
    assert old == new
    held = HeldResults()  # what a local run holds: the compact copies, compressed, decoded at its end
    for result in full:
        held.append(result)
    assert len(held) == len(full)
    assert _write_all(tmp_path / "held", held.results(), _experiment(full)) == old
    assert _write_all(tmp_path / "streamed", held, _experiment(full)) == old
    rows = json.loads(old["run.json"])["task_results"]
    assert rows[0]["installed_tools"] == ["python:requests", "npm:x"] and rows[0]["expected_turns"] == 3
    assert rows[0]["visible_turns"] == 6 and rows[0]["total_turns"] == 8 and rows[0]["has_final_reply"] is False


@pytest.mark.parametrize("count", [0, 1, 9])
def test_streamed_files_equal_those_built_from_the_whole_list(tmp_path: Path, count: int):
    statuses = [FinalStatus.SUCCESS, FinalStatus.FAILURE, FinalStatus.ERROR, FinalStatus.NOT_GRADED]
    full = [_agent_result(f"t{i % 4}", statuses[i % 4], i, judge_cost_usd=0.001 * i) for i in range(count)]
    held = HeldResults()
    held.extend(reversed(full))  # kept in another order than the rows'
    skipped = [SkippedTask(path="a|b.yaml", reason="invalid <thing> & more")]
    gates = [("default/s", False, "accuracy 0.5 < 0.9"), ("a/b", True, "")]
    summaries = {}
    for name, results in (("list", full), ("held", held)):
        target = tmp_path / name
        target.mkdir()
        summary = write_run_files(
            target, results, run_id="r", start_time=START, end_time=END, planned=count + 1, interrupted=True,
            skipped=skipped,
        )  # fmt: skip
        summaries[name] = summary
        if isinstance(results, HeldResults):
            write_junit(target / "junit.xml", summary, results, gates)
        else:
            (target / "junit.xml").write_text(junit_text(target, summary, results, gates), encoding="utf-8")
        write_experiment_reports(target, _experiment(full), results, 300.0)
    files = {
        name: {str(p.relative_to(tmp_path / name)): p.read_text() for p in (tmp_path / name).rglob("*") if p.is_file()}
        for name in summaries
    }
    assert files["held"] == files["list"]
    streamed, whole = summaries["held"], summaries["list"]
    assert streamed.task_results == [] and len(whole.task_results) == count  # a run's rows are only in run.json
    assert streamed.model_dump(exclude={"task_results"}) == whole.model_dump(exclude={"task_results"})


@pytest.mark.slow
def test_live_run_matches_outputs_built_from_full_records(tmp_path: Path):
    task = tmp_path / "tasks" / "task.yaml"
    task.parent.mkdir()
    task.write_text(
        yaml.safe_dump(
            {
                "task_id": "compact-rows",
                "description": "rows for the compact-copy check",
                "agent": {"type": "none"},
                "dataset": {"rows": [{"id": f"r{i}"} for i in range(3)]},
                "pre_run": [{"command": "printf ok > out.txt"}],
                "success_criteria": [
                    {"type": "file_exists", "path": "out.txt", "description": "wrote out.txt"},
                    {"type": "file_exists", "path": "missing.txt", "description": "never written"},
                ],
            }
        ),
        encoding="utf-8",
    )
    run = tmp_path / "run"
    junit = tmp_path / "live.xml"
    proc = cli(
        "run", task, "--type", "none", "--driver", "tempdir", "--repeats", "2", "-j", "2",
        "--run-dir", run, "--junit-xml", junit, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr  # every row misses missing.txt
    full, warnings = read_task_results(run)
    assert len(full) == 6 and not warnings
    live = read_run_summary(run)

    # The live run held compact copies: its run.json rows, run.md, JUnit, experiment and suite files
    # are what the full records give.
    rebuilt = tmp_path / "rebuilt"
    rebuilt.mkdir()
    summary = write_run_files(
        rebuilt, full, run_id=run.name, start_time=live.start_time, end_time=live.end_time,
        max_parallel=2, planned=6,
    )  # fmt: skip
    for name in ("run.json", "run.md"):
        assert (rebuilt / name).read_text() == (run / name).read_text(), name
    experiment = load_experiment(None, cwd=tmp_path)  # the run's: no --experiment given
    write_experiment_reports(rebuilt, experiment, full, summary.total_duration_seconds)
    for path in [run / "experiment.json", *run.glob("*/variant.json"), *run.glob("*/variant.md")]:
        assert (rebuilt / path.relative_to(run)).read_text() == path.read_text(), path
    tasks = load_tasks([str(task)]).tasks
    rollups = build_suite_rollups(full, {t.suite_id: list(t.definition.success_criteria) for t in tasks if t.suite_id})
    assert rollups
    for rollup in rollups:
        written = next(run.rglob("suite.json")).read_text()
        assert rollup.model_dump_json(indent=2) + "\n" == written
    assert junit.read_text() == junit_text(run, summary, full, suite_gate_entries(rollups))

    # `aggregate` and `report` rebuild from disk and agree with the live run.
    out = tmp_path / "agg"
    assert cli("aggregate", run, "-o", out, cwd=tmp_path).returncode == 0
    assert json.loads((out / "run.json").read_text())["task_results"] == live.task_results
    report = cli("report", run, "-f", "junit", "-o", tmp_path / "report.xml", cwd=tmp_path)
    assert report.returncode == 0 and (tmp_path / "report.xml").read_text() == junit.read_text()
