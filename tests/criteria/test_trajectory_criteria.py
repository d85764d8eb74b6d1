"""output_matches, tool_order and file_created: the agent's reply, transcript, tool order and created files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import spec

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.created_files import glob_regex, list_files
from coder_eval.criteria.grading import grade_one
from coder_eval.models.results import CriterionResult
from coder_eval.models.telemetry import AssistantMessage, CommandTelemetry, TurnRecord


def _turn(output: str = "", *calls: tuple[str, str, dict[str, Any]], status: str = "success") -> TurnRecord:
    commands = [
        CommandTelemetry(tool_name=name, tool_kind=kind, parameters=params, status=status)  # type: ignore[arg-type]
        for name, kind, params in calls
    ]
    messages = [AssistantMessage(content=output)] if output else []
    return TurnRecord(iteration=1, user_input="do it", agent_output=output, commands=commands, messages=messages)


def _grade(root: Path, turns: list[TurnRecord], before: frozenset[str] | None = None, **fields: Any) -> CriterionResult:
    ctx = CheckContext(root=root, task_dir=root, turns=turns, files_before=before)
    result, config_error = grade_one(spec(**fields), ctx)
    assert config_error is None, config_error
    return result


def test_reply_contains_absent_and_count(tmp_path: Path) -> None:
    turns = [_turn("first"), _turn("Hello Ada, hello again ada")]
    hit = _grade(tmp_path, turns, type="output_matches", pattern=r"\bada\b", flags=2)
    assert hit.score == 1.0 and "last reply" in hit.details
    assert _grade(tmp_path, turns, type="output_matches", pattern="first").score == 0.0  # only the last reply
    assert _grade(tmp_path, turns, type="output_matches", pattern="Bob", match="absent").score == 1.0
    counted = _grade(tmp_path, turns, type="output_matches", pattern="(?i)ada", match="count", count=2)
    assert counted.score == 1.0 and "2 match(es)" in counted.details
    assert _grade(tmp_path, turns, type="output_matches", pattern="(?i)ada", match="count", count=1).score == 0.0


def test_transcript_is_json_lines_of_calls_and_messages(tmp_path: Path) -> None:
    turns = [_turn("done", ("Bash", "shell", {"command": "ls -la"}))]
    assert _grade(tmp_path, turns, type="output_matches", source="transcript", pattern='"name":"Bash"').score == 1.0
    assert _grade(tmp_path, turns, type="output_matches", source="transcript", pattern="ls -la").score == 1.0
    assert _grade(tmp_path, turns, type="output_matches", source="transcript", pattern='"text":"done"').score == 1.0


def test_file_source_needs_the_file_whatever_the_mode(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text("Hello, Ada!\n", encoding="utf-8")
    found = _grade(tmp_path, [], type="output_matches", source="file", path="out.txt", pattern="^Hello, Ada!$", flags=8)
    assert found.score == 1.0
    missing = _grade(tmp_path, [], type="output_matches", source="file", path="gone.txt", pattern="x", match="absent")
    assert missing.score == 0.0 and "does not exist" in missing.details


def test_created_files_leave_out_what_was_there_before(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("old", encoding="utf-8")
    before = frozenset(list_files(tmp_path))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "new.log").write_text("x", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("changed", encoding="utf-8")  # modified, not created
    absent = _grade(
        tmp_path, [], before, type="output_matches", source="created_files", pattern="notes", match="absent"
    )
    assert absent.score == 1.0
    assert _grade(tmp_path, [], before, type="file_created", path="**/*.log").score == 1.0
    assert _grade(tmp_path, [], before, type="file_created", path="*.log").score == 0.0  # `*` stays in one directory
    assert _grade(tmp_path, [], before, type="file_created", path="notes.txt").score == 0.0
    forbidden = _grade(tmp_path, [], before, type="file_created", path="sub/*.log", exists=False)
    assert forbidden.score == 0.0 and "sub/new.log" in forbidden.details


def test_without_the_earlier_listing_the_criterion_cannot_run(tmp_path: Path) -> None:
    ctx = CheckContext(root=tmp_path, task_dir=tmp_path, turns=[], files_before=None)
    result, _ = grade_one(spec(type="file_created", path="x"), ctx)
    assert result.evaluation_status == "not_evaluated"
    assert result.error is not None and "before the agent started" in result.error


def test_tool_order_first_calls_and_patterns(tmp_path: Path) -> None:
    calls = [
        ("Read", "read", {"file_path": "a.txt"}),
        ("Bash", "shell", {"command": "bash -lc 'ls -la'"}),
        ("Bash", "shell", {"command": "cat summary.md"}),
    ]
    turns = [_turn("", *calls)]
    ok = _grade(tmp_path, turns, type="tool_order", first={"tool": "Bash", "pattern": "^ls"}, then={"tool": "Bash"})
    # the first Bash call is the ls one itself, so `then` (any Bash) does not come after it
    assert ok.score == 0.0 and "does not precede" in ok.details
    order = {"first": {"tool": "Read"}, "then": {"tool": "Bash", "pattern": r"summary\.md"}}
    assert _grade(tmp_path, turns, type="tool_order", **order).score == 1.0
    missing = _grade(tmp_path, turns, type="tool_order", first={"tool": "Write"}, then={"tool": "Bash"})
    assert missing.score == 0.0 and "no call matches Write" in missing.details


def test_tool_order_counts_every_agents_shell_and_never_a_refused_call(tmp_path: Path) -> None:
    shell = [_turn("", ("exec_command", "shell", {"cmd": "ls"}), ("write_file", "write", {"path": "x"}))]
    assert _grade(tmp_path, shell, type="tool_order", first={"tool": "Bash"}, then={"tool": "Write"}).score == 1.0
    refused = [_turn("", ("Bash", "shell", {"command": "ls"}), status="refused")]
    assert _grade(tmp_path, refused, type="tool_order", first={"tool": "Bash"}, then={"tool": "Bash"}).score == 0.0


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("greeting.txt", "greeting.txt", True),
        ("*.txt", "a/b.txt", False),
        ("**/*.txt", "a/b.txt", True),
        ("**/*.txt", "b.txt", True),
        ("a/**", "a/b/c", True),
        ("?.md", "x.md", True),
        ("a+b(1).md", "a+b(1).md", True),
    ],
)
def test_created_glob(pattern: str, path: str, hit: bool) -> None:
    assert bool(glob_regex(pattern).match(path)) is hit


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"source": "file", "pattern": "x"}, "path is set exactly when source is `file`"),
        ({"pattern": "x", "match": "count"}, "count is set exactly when match is `count`"),
        ({"pattern": "x", "max_bytes": 10}, "max_bytes applies to source `file` only"),
        ({"pattern": "("}, "not a valid regular expression"),
    ],
)
def test_output_matches_rejects_inconsistent_fields(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        spec(type="output_matches", **fields)
