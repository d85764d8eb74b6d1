"""Flaky tasks: stability over replicates and runs, and the criteria that flip."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from coder_eval.experiments.flaky import stability_lines, task_stability
from coder_eval.models.results import CriterionResult, EvaluationResult
from coder_eval.models.status import FinalStatus

Row = Callable[..., EvaluationResult]


def _criteria(hello: float, tests: float) -> list[CriterionResult]:
    return [
        CriterionResult(criterion_type="file_contains", description="says hello", score=hello),
        CriterionResult(criterion_type="run_command", description="tests pass", score=tests),
    ]


def test_flipping_criterion_is_named_with_its_scores(row: Row) -> None:
    run_a = [
        row("t", "A", 1.0, 0, success_criteria_results=_criteria(1.0, 1.0)),
        row("t", "A", 0.5, 1, final_status=FinalStatus.FAILURE, success_criteria_results=_criteria(1.0, 0.0)),
    ]
    run_b = [row("t", "A", 1.0, 0, success_criteria_results=_criteria(1.0, 1.0))]
    [t] = task_stability([("run-a", run_a), ("run-b", run_b)])
    assert t.flaky and (t.succeeded, t.graded) == (2, 3) and t.stability == pytest.approx(2 / 3)
    assert t.strips == (("run-a", "✓✗"), ("run-b", "✓"))
    [flip] = t.flips  # `says hello` passed everywhere, so only the tests flip
    assert flip.describe() == "run_command: tests pass: passed 2 of 3 (scores 0.000–1.000)"
    lines = stability_lines([t])
    assert lines[0] == "t (A): stability 0.67, 2 of 3 graded unit(s) succeeded"
    assert lines[1] == "  runs: run-a ✓✗ · run-b ✓"
    assert lines[-1] == "1 of 1 task(s) flaky (outcome differs between replicates or runs)"


def test_stable_tasks_are_left_out_unless_asked_and_sorted_last(row: Row) -> None:
    rows = [row("steady", "A", 1.0, i) for i in range(3)] + [row("never", "A", 0.0, i) for i in range(2)]
    rows += [row("coin", "A", 1.0, 0), row("coin", "A", 0.0, 1)]
    tasks = task_stability([("r", rows)])
    assert [t.task_id for t in tasks] == ["coin", "never", "steady"]
    assert [t.flaky for t in tasks] == [True, False, False]
    assert tasks[1].stability == 1.0
    assert not any(line.startswith("steady") for line in stability_lines(tasks))
    assert any(line.startswith("steady (A): stability 1.00") for line in stability_lines(tasks, show_all=True))


def test_status_flip_without_a_criterion_flip_says_which_statuses(row: Row) -> None:
    rows = [row("t", "A", 1.0, 0), row("t", "A", None, 1, final_status=FinalStatus.ERROR)]
    [t] = task_stability([("r", rows)])
    assert t.flaky and t.flips == () and t.strips == (("r", "✓!"),)
    assert "  no criterion flips; the statuses differ: ERROR ×1, SUCCESS ×1" in stability_lines([t])


def test_variants_are_kept_apart_and_ungraded_units_do_not_count(row: Row) -> None:
    rows = [row("t", "A", 1.0, 0), row("t", "B", 0.0, 0), row("t", "A", None, 1)]
    tasks = task_stability([("r", rows)])
    assert [(t.variant_id, t.flaky, t.graded) for t in tasks] == [("A", False, 1), ("B", False, 1)]
    assert task_stability([("r", [row("u", "A", None, 0)])])[0].stability is None
