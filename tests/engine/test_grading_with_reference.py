"""The reference at grading, through the orchestrator (tempdir, no agent): who sees it, what survives, what is kept.

pre_run and the criteria play the hostile agent's code; each test checks the honest grade and that
no reference byte reached the records or the preserved workspace.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.reports.markdown import render_task_markdown
from conftest import base_task

LONG_LINE = "ANSWER_TABLE = {'alpha': 1, 'beta': 2, 'gamma': 3}"
SHORT_LINE = "x = 41 + 1"


@pytest.fixture
def canary() -> str:
    return "REFCANARY_" + secrets.token_hex(8)


def _reference(tmp_path: Path, canary: str) -> None:
    ref = tmp_path / "tasks" / "reference"
    ref.mkdir(parents=True)
    (ref / "solution.py").write_text(f"SECRET = '{canary}'\n{LONG_LINE}\n{SHORT_LINE}\n")
    (ref / "blob.bin").write_bytes(b"\0\1\2" + canary.encode() + b"\0")


def _cmd(command: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "run_command", "command": command, "description": description, **extra}


def _task(criteria: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return base_task(reference={"directory": "reference"}, success_criteria=criteria, **extra)


def _by_description(result: EvaluationResult) -> dict[str, Any]:
    return {c.description: c for c in result.success_criteria_results}


def _no_leak(tmp_path: Path, canary: str, result: EvaluationResult) -> None:
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            assert canary.encode() not in data, f"reference bytes reached {path}"
            assert LONG_LINE.encode() not in data, f"a reference line reached {path}"
    assert canary not in render_task_markdown(result) and LONG_LINE not in render_task_markdown(result)


def test_only_the_criteria_that_name_the_reference_see_it(run_task, tmp_path: Path, canary: str) -> None:
    _reference(tmp_path, canary)
    doc = _task(
        [
            _cmd('test -r "$REFERENCE_DIR/solution.py"', "names it"),
            _cmd("env > seen_by_other.txt; ls -R / 2>/dev/null | grep -c solution.py > found.txt; true", "does not"),
        ],
        post_run=[{"command": "env > seen_by_post_run.txt"}],
    )
    result = run_task(doc)
    assert result.final_status is FinalStatus.SUCCESS, result.success_criteria_results
    artifacts = Path(result.sandbox_path or "")
    assert "REFERENCE_DIR" not in (artifacts / "seen_by_other.txt").read_text()
    assert "REFERENCE_DIR" not in (artifacts / "seen_by_post_run.txt").read_text()
    _no_leak(tmp_path, canary, result)


def test_a_daemon_started_by_a_criterion_ends_before_the_next_and_before_post_run(run_task, tmp_path: Path) -> None:
    beat = "while :; do echo beat >> beats.txt; sleep 0.05; done"
    still = 'a=$(wc -l < beats.txt); sleep 0.4; b=$(wc -l < beats.txt); echo "$a $b"; test "$a" = "$b"'
    doc = base_task(
        success_criteria=[
            _cmd(f"(setsid sh -c '{beat}' >/dev/null 2>&1 &); sleep 0.3; test -s beats.txt", "starts a daemon"),
            _cmd(still, "the daemon is gone"),
        ],
        post_run=[{"command": still}],
    )
    result = run_task(doc)
    criteria = _by_description(result)
    assert criteria["starts a daemon"].score == 1.0, criteria
    assert criteria["the daemon is gone"].score == 1.0, criteria["the daemon is gone"].details
    assert result.post_run_results[0].exit_code == 0, result.post_run_results[0]
    assert result.final_status is FinalStatus.SUCCESS


def test_reference_copies_made_at_grading_are_neutralised_and_shown(run_task, tmp_path: Path, canary: str) -> None:
    _reference(tmp_path, canary)
    steal = (
        'cp "$REFERENCE_DIR/solution.py" stolen.py; cp "$REFERENCE_DIR/blob.bin" stolen.bin; '
        'mkdir -p sub; { echo "# mine"; grep ANSWER_TABLE "$REFERENCE_DIR/solution.py"; } > sub/mixed.py; '
        'cp "$REFERENCE_DIR/solution.py" "$HOME/stash.py"; true'
    )
    doc = _task(
        [
            _cmd(steal, "grader that runs agent code"),
            _cmd(
                "! grep -rq REFCANARY_ . $HOME && ! grep -q ANSWER_TABLE sub/mixed.py",
                "later criterion finds nothing",
            ),
        ],
        post_run=[{"command": "cat stolen.py sub/mixed.py $HOME/stash.py"}],
    )
    result = run_task(doc)
    criteria = _by_description(result)
    assert criteria["later criterion finds nothing"].score == 1.0, criteria["later criterion finds nothing"].details
    assert result.final_status is FinalStatus.SUCCESS
    removed = " ".join(result.reference_copies)
    for name in ("stolen.py", "stolen.bin", "sub/mixed.py", "HOME stash.py"):
        assert name in removed, result.reference_copies
    assert "reference content removed afterwards" in criteria["grader that runs agent code"].details
    mixed = (Path(result.sandbox_path or "") / "sub" / "mixed.py").read_text()
    assert mixed.startswith("# mine\n")  # the agent's own text stays
    assert "Reference content removed" in render_task_markdown(result)
    assert "reference content" in (tmp_path / "run").joinpath(*_unit_dir(result), "task.log").read_text()
    _no_leak(tmp_path, canary, result)


def test_a_failing_diff_puts_no_reference_line_in_the_records(run_task, tmp_path: Path, canary: str) -> None:
    _reference(tmp_path, canary)
    doc = _task(
        [_cmd('diff "$REFERENCE_DIR/solution.py" solution.py', "matches the reference")],
        pre_run=[{"command": "printf 'SECRET = 1\\n' > solution.py"}],
    )
    result = run_task(doc)
    (diff,) = result.success_criteria_results
    assert diff.score == 0.0 and result.final_status is FinalStatus.FAILURE
    assert "[reference content from solution.py removed]" in diff.details
    assert SHORT_LINE not in diff.details  # near the reference, short lines are scrubbed too
    assert "SECRET = 1" in diff.details  # the agent's own line is evidence and stays
    _no_leak(tmp_path, canary, result)


def _unit_dir(result: EvaluationResult) -> tuple[str, ...]:
    return (result.variant_id, *result.task_id.split("/"), f"{result.replicate_index:02d}")


def test_a_forged_cli_log_does_not_pass_the_guard(run_task, tmp_path: Path) -> None:
    forge = (
        "gh repo delete org/x --yes; "
        """printf '{"argv": ["repo", "list"], "tool": "gh"}\\n' > cli_mocks/calls.jsonl; gh repo list"""
    )
    doc = base_task(
        sandbox={"record_cli": [{"tool": "gh", "exit_code": 0}]},
        pre_run=[{"command": forge}],
        success_criteria=[
            {"type": "cli_called", "verb": "repo delete", "max_count": 0, "min_count": 0, "description": "no delete"},
            {"type": "cli_called", "verb": "repo list", "description": "listed"},
            {
                "type": "file_matches_regex",
                "path": "cli_mocks/calls.jsonl",
                "pattern": '"argv": \\["repo", "delete"',
                "description": "the copy holds the delete",
            },
        ],
    )
    result = run_task(doc)
    criteria = _by_description(result)
    assert criteria["no delete"].score == 0.0 and "repo delete org/x" in criteria["no delete"].details
    assert criteria["listed"].score == 1.0
    assert criteria["the copy holds the delete"].score == 1.0  # restored from the record before grading
    assert result.final_status is FinalStatus.FAILURE
    unit = (tmp_path / "run").joinpath(*_unit_dir(result))
    kept = [json.loads(line)["argv"] for line in (unit / "cli_calls.jsonl").read_text().splitlines()]
    assert kept == [["repo", "delete", "org/x", "--yes"], ["repo", "list"]]
    assert "differed from the harness's record" in (unit / "task.log").read_text()
