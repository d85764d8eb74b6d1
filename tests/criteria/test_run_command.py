"""run_command: exit codes, stdout matching, scores from stdout, timeouts, TASK_DIR."""

from __future__ import annotations

import pytest
from helpers import check, spec

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade_one


@pytest.mark.parametrize(
    ("fields", "score"),
    [
        ({"command": "true"}, 1.0),
        ({"command": "false"}, 0.0),
        ({"command": "exit 3", "expected_exit_code": 3}, 1.0),
        ({"command": "echo '  Hello, World!  '", "expected_stdout": "Hello, World!"}, 1.0),
        ({"command": "echo 'Hello, World!!'", "expected_stdout": "Hello, World!"}, 0.0),
        ({"command": "echo 'say Hello there'", "expected_stdout": "Hello", "stdout_match": "contains"}, 1.0),
        ({"command": "echo 'v1.2.3'", "expected_stdout": r"^v\d+\.\d+", "stdout_match": "regex"}, 1.0),
        ({"command": "echo 'x'; exit 1", "expected_stdout": "x"}, 0.0),  # exit code checked first
        ({"command": "cat app.txt", "expected_stdout": "content"}, 1.0),  # runs in the sandbox
    ],
)
def test_exit_and_stdout(sandbox, fields, score):
    assert check(sandbox({"app.txt": "content"}), type="run_command", **fields).score == score


@pytest.mark.parametrize(
    ("command", "score", "detail"),
    [
        ("printf '0.75\\nthree of four passed\\n'", 0.75, "three of four passed"),
        ("echo 1", 1.0, ""),
        ("echo 0", 0.0, ""),
        ("echo 1.5", 1.0, "printed 1.5, clamped to 1"),
        ("echo -0.25", 0.0, "printed -0.25, clamped to 0"),
        ("echo nan", 0.0, "not a number"),
        ("echo high", 0.0, "not a number"),
        ("printf '0.9\\n'; exit 2", 0.0, "exit code 2"),
        ("true", 0.0, "not a number"),
    ],
)
def test_score_from_stdout(sandbox, command, score, detail):
    result = check(sandbox({}), type="run_command", command=command, score_from_stdout=True)
    assert result.score == pytest.approx(score)
    assert detail in result.details


def test_score_from_stdout_honours_an_explicit_exit_code(sandbox):
    fields = {"type": "run_command", "score_from_stdout": True, "expected_exit_code": 3}
    assert check(sandbox({}), command="echo 0.5; exit 3", **fields).score == pytest.approx(0.5)
    assert check(sandbox({}), command="echo 0.5", **fields).score == 0.0


def test_contains_strips_the_expected_text_as_exact_does(sandbox):
    fields = {"type": "run_command", "command": "echo hello world", "stdout_match": "contains"}
    assert check(sandbox({}), expected_stdout="  hello\n", **fields).score == 1.0


def test_timeout_scores_zero_and_kills_the_command(sandbox):
    result = check(sandbox({}), type="run_command", command="sleep 30", timeout=0.5)
    assert result.score == 0.0 and result.error == "timeout"


def test_background_child_does_not_hold_the_check_open(sandbox):
    result = check(
        sandbox({}), type="run_command", command="(sleep 30 &) ; echo done", expected_stdout="done", timeout=10
    )
    assert result.score == 1.0


def test_task_and_reference_dirs_are_in_the_environment(sandbox, tmp_path):
    root = sandbox({})
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "answer.txt").write_text("42")
    ctx = CheckContext(root=root, task_dir=tmp_path, reference_dir=ref)
    result, _ = grade_one(
        spec(type="run_command", command='cat "$REFERENCE_DIR/answer.txt"; test -d "$TASK_DIR"', expected_stdout="42"),
        ctx,
    )
    assert result.score == 1.0


def test_stdin_is_closed(sandbox):
    assert check(sandbox({}), type="run_command", command="cat", timeout=5).score == 1.0


def test_mock_dirs_come_first_on_path(sandbox):
    root = sandbox({"mocks/uip": "#!/bin/sh\necho mocked\n"})
    (root / "mocks" / "uip").chmod(0o755)
    ctx = CheckContext(root=root, path_prepend=[root / "mocks"])
    result, _ = grade_one(spec(type="run_command", command="uip", expected_stdout="mocked"), ctx)
    assert result.score == 1.0
