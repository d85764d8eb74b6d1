"""run.md and the per-task Markdown page."""

from __future__ import annotations

from coder_eval.models.results import CommandResult, CriterionResult, EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.records.summary import build_run_summary
from coder_eval.reports.markdown import render_run_markdown, render_task_markdown


def _section(text: str, heading: str) -> str:
    """The body of one `### heading` section (up to the next heading of that level or higher)."""
    start = text.index(heading)
    rest = text[start + len(heading) :]
    ends = [i for i in (rest.find("\n### "), rest.find("\n## ")) if i >= 0]
    return rest[: min(ends)] if ends else rest


def test_run_header_counts_rates_and_duration(summary, results):
    text = render_run_markdown(summary, list(results.values()))
    assert text.startswith("# Coder Eval run 2026-11-30_10-00-00\n")
    assert "6 run · 2 succeeded · 2 failed · 1 errors · 1 not graded" in text
    assert "**Pass rate:** 40.0%" in text
    assert "**Error share:** 20.0%" in text


def test_cost_is_flagged_as_a_floor_when_a_row_is_unpriced(summary, results):
    text = render_run_markdown(summary, list(results.values()))
    assert "total ≥ $0.09 · agent ≥ $0.08 · judges ≥ $0.01 · simulated user none" in text
    assert "Cost is incomplete for 1 task(s)" in text


def test_complete_cost_has_no_floor_marker(results):
    summary = build_run_summary("r", [results["success"]])
    text = render_run_markdown(summary, [results["success"]])
    assert "total $0.05 · agent $0.05 · judges none · simulated user none" in text
    assert "≥" not in text
    assert "incomplete" not in text


def test_empty_run_reports_rates_as_not_available():
    summary = build_run_summary("empty", [])
    text = render_run_markdown(summary, [])
    assert "**Pass rate:** n/a · **Error share:** n/a" in text
    assert "No tasks were run." in text
    assert "total unpriced" in text


def test_task_table_lists_every_row_with_status_and_none_score_as_na(summary, results):
    text = render_run_markdown(summary, list(results.values()))
    table = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(table) == 6
    ungraded = next(line for line in table if "execute-only" in line)
    assert "? NOT_GRADED" in ungraded
    assert "| n/a |" in ungraded
    timeout = next(line for line in table if "treatment" in line)
    assert "T TIMEOUT" in timeout and "3m 04s" in timeout and "| 1 |" in timeout
    errored = next(line for line in table if "crashy" in line)
    assert "unpriced" in errored


def test_failure_section_lists_gating_failure_info_and_not_evaluated(summary, results):
    text = render_run_markdown(summary, list(results.values()))
    section = _section(text, "### - write-report (default) — FAILURE")
    assert "✗ **file_exists: report.txt is written** — score 0.000 < threshold 0.900" in section
    assert "no file matched report.txt" in section
    assert "○ **commands_efficiency: uses few commands**" in section
    assert "(informational — not gated)" in section
    assert "– **llm_judge: code quality** — not evaluated" in section
    assert "tests pass" not in section
    assert section.count("✗") == 1


def test_error_and_timeout_sections_carry_their_messages(summary, results):
    text = render_run_markdown(summary, list(results.values()))
    assert "Sandbox crashed while starting the agent" in _section(text, "### ! crashy (default) — ERROR")
    timeout = _section(text, "### T hello-world [rep 1] (treatment) — TIMEOUT")
    assert "task timed out after 180s" in timeout


def test_successful_and_ungraded_tasks_get_no_problem_section(summary, results):
    text = render_run_markdown(summary, list(results.values()))
    problems = text.split("## Failures and errors", 1)[1]
    assert "execute-only" not in problems
    assert "qa-suite" not in problems


def test_long_details_are_truncated(result_factory):
    criterion = CriterionResult(criterion_type="json_check", description="d", score=0.0, details="x" * 5000)
    result = result_factory("long", FinalStatus.FAILURE, weighted_score=0.0, success_criteria_results=[criterion])
    text = render_run_markdown(build_run_summary("r", [result]), [result])
    assert "x" * 600 not in text
    assert "more chars]" in text


def test_pipes_in_values_do_not_break_the_table(result_factory):
    result = result_factory("a|b", FinalStatus.SUCCESS)
    text = render_run_markdown(build_run_summary("r", [result]), [result])
    assert "a\\|b" in text


def test_skipped_tasks_are_listed(summary, results):
    text = render_run_markdown(summary, list(results.values()))
    assert "## Skipped tasks" in text
    assert "- tasks/broken.yaml: invalid YAML on line 3" in text


def test_task_page_marks_every_outcome(results):
    text = render_task_markdown(results["failure"])
    assert text.startswith("# Task write-report\n")
    assert "- Status: - FAILURE (failed)" in text
    assert "- Score: 0.400" in text
    assert "| ✗ fail | file_exists |" in text
    assert "| ○ informational — not gated | commands_efficiency |" in text
    assert "| – not evaluated | llm_judge | code quality | n/a |" in text
    assert "| ✓ pass | run_command |" in text


def test_task_page_shows_ungraded_score_as_na_and_replicate(results):
    assert "- Score: n/a" in render_task_markdown(results["ungraded"])
    assert render_task_markdown(results["replicate"]).startswith("# Task hello-world [rep 1]\n")


def test_task_page_shows_commands_and_errors(result_factory):
    result: EvaluationResult = result_factory(
        "cmds",
        FinalStatus.ERROR,
        pre_run_results=[CommandResult(command="make setup", exit_code=0, duration_seconds=1.5)],
        post_run_results=[CommandResult(command="cleanup", exit_code=None, error="killed")],
        error_message="it broke with ``` fences",
        error_log_tail="last log line",
    )
    text = render_task_markdown(result)
    assert "## Pre-run commands" in text and "| make setup | 0 | 1.5s |  |" in text
    assert "## Post-run commands" in text and "| cleanup | n/a | 0.0s | killed |" in text
    assert "````\nit broke with ``` fences\n````" in text
    assert "Log tail:" in text and "last log line" in text


def test_judge_cost_says_unpriced_only_when_a_judge_ran_unpriced(results):
    from coder_eval.models.telemetry import TokenUsage

    unpriced = results["success"].model_copy(
        update={"judge_token_usage": TokenUsage(uncached_input_tokens=900, output_tokens=40, total_cost_usd=None)}
    )
    summary = build_run_summary("r", [unpriced])
    text = render_run_markdown(summary, [unpriced])
    assert "judges unpriced · simulated user none" in text
    assert summary.judges_ran and not summary.simulator_ran
