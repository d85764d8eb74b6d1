"""Flaky tasks: stability over replicates and runs, the criteria that flip with both sides, grader defects."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import pytest

from coder_eval.experiments.flaky import Unit, task_stability
from coder_eval.experiments.flaky_text import stability_lines
from coder_eval.experiments.grader_defects import grader_checks
from coder_eval.models.regrades import CriterionGrade, Regrade, UnitRegrades
from coder_eval.models.results import CriterionResult, EvaluationResult
from coder_eval.models.status import FinalStatus

Row = Callable[..., EvaluationResult]


def _criteria(hello: float, tests: float, said: str = "") -> list[CriterionResult]:
    return [
        CriterionResult(criterion_type="file_contains", description="says hello", score=hello),
        CriterionResult(criterion_type="run_command", description="tests pass", score=tests, details=said),
    ]


def _units(run: str, rows: Sequence[EvaluationResult]) -> list[Unit]:
    return [Unit(run, r, f"{r.variant_id}/{r.task_id}/{r.replicate_index:02d}") for r in rows]


def test_flipping_criterion_is_named_with_both_sides(row: Row) -> None:
    run_a = [
        row("t", "A", 1.0, 0, success_criteria_results=_criteria(1.0, 1.0, "3 passed")),
        row(
            "t",
            "A",
            0.5,
            1,
            final_status=FinalStatus.FAILURE,
            success_criteria_results=_criteria(1.0, 0.0, "1 failed\nE assert"),
        ),
    ]
    run_b = [row("t", "A", 1.0, 0, success_criteria_results=_criteria(1.0, 1.0, "3 passed"))]
    [t] = task_stability(_units("run-a", run_a) + _units("run-b", run_b))
    assert t.flaky and (t.succeeded, t.graded) == (2, 3)
    # pairs: (a0, a1) disagree, (a0, b0) agree, (a1, b0) disagree → 1 of 3; within run-a 0 of 1; across 1 of 2
    assert t.stability == pytest.approx(1 / 3)
    assert (t.within_runs.agree, t.within_runs.pairs, t.across_runs.agree, t.across_runs.pairs) == (0, 1, 1, 2)
    assert t.strips == (("run-a", "✓✗"), ("run-b", "✓"))
    [flip] = t.flips  # `says hello` passed everywhere, so only the tests flip
    assert flip.describe() == "run_command: tests pass: passed 2 of 3 (scores 0.000–1.000)"
    assert [r.label for r in flip.passing.units] == ["run-a#0", "run-b#0"]
    assert [(r.text, [u.label for u in r.units]) for r in flip.failing.reasons] == [("1 failed", ["run-a#1"])]
    lines = stability_lines([t])
    assert lines[0] == (
        "t (A · ? · ?): stability 0.33 (within runs 0.00, across runs 0.50), 2 of 3 graded unit(s) succeeded"
    )
    assert lines[1] == "  runs: run-a ✓✗ · run-b ✓"
    assert "    passed in run-a#0, run-b#0 (score 1.000): 3 passed" in lines
    assert "    failed in run-a#1 (score 0.000): 1 failed" in lines
    assert lines[-1] == "1 of 1 task(s) flaky (outcome differs between replicates or runs)"


def test_stable_tasks_are_left_out_unless_asked_and_sorted_last(row: Row) -> None:
    rows = [row("steady", "A", 1.0, i) for i in range(3)] + [row("never", "A", 0.0, i) for i in range(2)]
    rows += [row("coin", "A", 1.0, 0), row("coin", "A", 0.0, 1)]
    tasks = task_stability(_units("r", rows))
    assert [t.task_id for t in tasks] == ["coin", "never", "steady"]
    assert [t.flaky for t in tasks] == [True, False, False]
    assert tasks[0].stability == 0.0 and tasks[1].stability == 1.0
    assert tasks[0].across_runs.share is None  # one run: no pairs across runs
    assert not any(line.startswith("steady") for line in stability_lines(tasks))
    assert any(line.startswith("steady (A · ? · ?): stability 1.00") for line in stability_lines(tasks, show_all=True))


def test_status_flip_without_a_criterion_flip_says_which_statuses(row: Row) -> None:
    rows = [row("t", "A", 1.0, 0), row("t", "A", None, 1, final_status=FinalStatus.ERROR)]
    [t] = task_stability(_units("r", rows))
    assert t.flaky and t.flips == () and t.strips == (("r", "✓!"),)
    assert "  no criterion flips; the statuses differ: ERROR ×1, SUCCESS ×1" in stability_lines([t])


def test_configurations_are_kept_apart_and_ungraded_units_do_not_count(row: Row) -> None:
    rows = [row("t", "A", 1.0, 0), row("t", "B", 0.0, 0), row("t", "A", None, 1)]
    rows += [row("t", "A", 0.0, 2, model_used="other-model")]  # another model: another configuration
    tasks = task_stability(_units("r", rows))
    assert sorted((t.variant_id, t.key.model, t.flaky, t.graded) for t in tasks) == [
        ("A", "?", False, 1),
        ("A", "other-model", False, 1),
        ("B", "?", False, 1),
    ]
    assert task_stability(_units("r", [row("u", "A", None, 0)]))[0].stability is None


def test_a_configuration_that_changed_between_runs_is_noted(row: Row) -> None:
    a = row("t", "A", 1.0, 0, config_fingerprint={"initial_prompt": "aa", "agent": "x"})
    b = row("t", "A", 0.0, 0, config_fingerprint={"initial_prompt": "bb", "agent": "x"})
    [t] = task_stability(_units("r1", [a]) + _units("r2", [b]))
    assert t.config_changes == ("initial_prompt",)
    assert any("configuration differs between these units (initial_prompt)" in line for line in stability_lines([t]))


def test_reasons_from_the_agent_are_cleaned_for_the_terminal(row: Row) -> None:
    bad = "\x1b]8;;http://x\x07click\x1b]8;;\x07 \u202eevil"
    rows = [
        row("t", "A", 1.0, 0, success_criteria_results=_criteria(1.0, 1.0, "ok")),
        row("t", "A", 0.0, 1, success_criteria_results=_criteria(1.0, 0.0, bad)),
    ]
    text = "\n".join(stability_lines(task_stability(_units("r", rows))))
    assert "\x1b" not in text and "\u202e" not in text and "<U+202E>evil" in text


def _grade(score: float, said: str) -> CriterionGrade:
    return CriterionGrade(
        criterion_type="run_command", description="coin", score=score, passed=score >= 0.9, details=said
    )


def test_a_grade_that_differs_on_the_same_workspace_is_a_grader_defect(row: Row) -> None:
    [unit] = _units(
        "r",
        [
            row(
                "t",
                "A",
                1.0,
                0,
                success_criteria_results=[
                    CriterionResult(criterion_type="run_command", description="coin", score=1.0, details="exit 0")
                ],
            )
        ],
    )
    now = datetime.now(UTC)
    stored = UnitRegrades(
        task_id="t",
        regrades=[
            Regrade(at=now, criteria=[_grade(1.0, "exit 0")]),
            Regrade(at=now, criteria=[_grade(0.0, "exit 1")]),
            Regrade(at=now, comparable=False, note="the workspace copy left out big.bin"),
        ],
    )
    [steady] = _units("r", [row("s", "A", 1.0, 0)])
    checks = grader_checks([(steady, UnitRegrades(task_id="s", regrades=[Regrade(at=now)])), (unit, stored)])
    assert [(c.key.task_id, c.defect, c.regrades) for c in checks] == [("t", True, 2), ("s", False, 1)]
    [flip] = checks[0].flips
    assert [(o.grade, o.passed) for o in flip.outcomes] == [
        ("recorded", True),
        ("re-grade 1", True),
        ("re-grade 2", False),
    ]
    assert checks[0].notes == ("re-grade 3 not compared: the workspace copy left out big.bin",)
    lines = stability_lines(task_stability([unit, steady]), checks)
    assert "grader check: 2 unit(s) re-graded, 1 whose grade differs on the same workspace" in lines
    assert "    re-grade 2: failed (0.000): exit 1" in lines
    assert lines[-1] == "1 task(s) with a grader defect (grade differs on the same workspace)"
