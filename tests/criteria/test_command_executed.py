"""Table-driven tests for `command_executed` and `commands_efficiency`, and the shell-text helpers they share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade_one
from coder_eval.criteria.shell_text import command_text, haystacks
from coder_eval.models.criteria import SuccessCriterion
from coder_eval.models.results import CriterionResult
from coder_eval.models.telemetry import CommandTelemetry, TurnRecord

_ADAPTER: TypeAdapter[Any] = TypeAdapter(SuccessCriterion)


def bash(command: str, status: str = "success") -> CommandTelemetry:
    return CommandTelemetry(tool_name="Bash", parameters={"command": command}, status=status)  # type: ignore[arg-type]


def tool(name: str, status: str = "success", **parameters: Any) -> CommandTelemetry:
    return CommandTelemetry(tool_name=name, parameters=parameters, status=status)  # type: ignore[arg-type]


def grade(tmp_path: Path, fields: dict[str, Any], turns: list[list[CommandTelemetry]] | None) -> CriterionResult:
    """Grade one criterion against turns given as lists of commands (None: no agent ran)."""
    spec = _ADAPTER.validate_python({"description": "probe", **fields})
    records = None if turns is None else [TurnRecord(iteration=i + 1, commands=c) for i, c in enumerate(turns)]
    result, config_error = grade_one(spec, CheckContext(root=tmp_path, turns=records))
    assert config_error is None, config_error
    return result


def executed(tmp_path: Path, commands: list[CommandTelemetry], **fields: Any) -> CriterionResult:
    return grade(tmp_path, {"type": "command_executed", **fields}, [commands])


# --- shell text -----------------------------------------------------------------------------------

TEXT_CASES = [
    pytest.param("Bash", {"command": "ls -la"}, "ls -la", id="command-key"),
    pytest.param("shell", {"cmd": "make test"}, "make test", id="cmd-key"),
    pytest.param("shell", {"command": ["bash", "-lc", "echo hi"]}, "bash -lc 'echo hi'", id="argv-list-joined"),
    pytest.param("Read", {"file_path": "/w/a.py", "limit": 5}, "file_path=/w/a.py limit=5", id="other-tool-sorted"),
    pytest.param("Grep", {"pattern": "x", "command": 3}, "command=3 pattern=x", id="non-text-command-rendered"),
    pytest.param("Glob", {}, "", id="no-parameters"),
]


@pytest.mark.parametrize(("name", "parameters", "expected"), TEXT_CASES)
def test_command_text(name: str, parameters: dict[str, Any], expected: str) -> None:
    assert command_text(name, parameters) == expected


HAYSTACK_CASES = [
    pytest.param("ls -la", ["ls -la"], id="plain-no-second-form"),
    pytest.param('bash -lc "grep foo x"', ['bash -lc "grep foo x"', "grep foo x"], id="bash-lc-double"),
    pytest.param("sh -c 'grep foo x'", ["sh -c 'grep foo x'", "grep foo x"], id="sh-c-single"),
    pytest.param("zsh -c 'a b'", ["zsh -c 'a b'", "a b"], id="zsh"),
    pytest.param("/bin/bash -c 'a b'", ["/bin/bash -c 'a b'", "a b"], id="absolute-bash"),
    pytest.param("grep 'foo bar' x", ["grep 'foo bar' x", "grep foo bar x"], id="quotes-resolved-without-wrapper"),
    pytest.param(
        'bash -lc "grep \\"foo\\" x"', ['bash -lc "grep \\"foo\\" x"', "grep foo x"], id="escaped-quotes-in-wrapper"
    ),
    pytest.param("echo 'unterminated", ["echo 'unterminated"], id="unparseable-raw-only"),
    pytest.param("bash -c", ["bash -c"], id="wrapper-without-script"),
    pytest.param("python -c 'print(1)'", ["python -c 'print(1)'", "python -c print(1)"], id="not-a-shell-wrapper"),
    pytest.param("bash --norc -c 'a b'", ["bash --norc -c 'a b'", "a b"], id="long-option-with-c-letter"),
    pytest.param("bash --login -c 'a b'", ["bash --login -c 'a b'", "a b"], id="long-option-before-c"),
    pytest.param("bash -e -c 'a b'", ["bash -e -c 'a b'", "a b"], id="short-option-before-c"),
    pytest.param("bash -e 'a b'", ["bash -e 'a b'", "bash -e a b"], id="no-c-option-not-unwrapped"),
    pytest.param("bash script.sh -c 'a b'", ["bash script.sh -c 'a b'", "bash script.sh -c a b"], id="c-after-script"),
]


@pytest.mark.parametrize(("text", "expected"), HAYSTACK_CASES)
def test_haystacks(text: str, expected: list[str]) -> None:
    assert haystacks(text) == expected


# --- command_executed: matching -------------------------------------------------------------------

MATCH_CASES = [
    # tool_name filter; null means any tool
    pytest.param({"tool_name": "Bash"}, [bash("ls")], 1.0, id="tool-name-hit"),
    pytest.param({"tool_name": "Bash"}, [tool("Read", file_path="a")], 0.0, id="tool-name-miss"),
    pytest.param({"tool_name": "bash"}, [bash("ls")], 0.0, id="tool-name-case-sensitive"),
    pytest.param({"tool_name": None}, [tool("Read", file_path="a")], 1.0, id="null-tool-any"),
    pytest.param({}, [tool("WebFetch", url="u")], 1.0, id="defaults-any-call"),
    pytest.param({}, [], 0.0, id="defaults-no-calls"),
    # command_pattern on raw text
    pytest.param({"command_pattern": r"curl.*wttr\.in"}, [bash("curl -s wttr.in/Paris")], 1.0, id="raw-regex"),
    pytest.param({"command_pattern": r"^curl"}, [bash("wget wttr.in")], 0.0, id="raw-regex-miss"),
    pytest.param({"command_pattern": "curl"}, [bash("echo x && curl y")], 1.0, id="search-not-match"),
    # command_pattern on the shell-normalized form
    pytest.param({"command_pattern": "^grep chan$"}, [bash('bash -lc "grep chan"')], 1.0, id="bash-lc-unwrapped"),
    pytest.param({"command_pattern": "^grep chan$"}, [bash("sh -c 'grep chan'")], 1.0, id="sh-c-unwrapped"),
    pytest.param({"command_pattern": "grep chan f"}, [bash("grep 'chan' f")], 1.0, id="single-quoted-arg"),
    pytest.param({"command_pattern": "grep chan f"}, [bash('grep "chan" f')], 1.0, id="double-quoted-arg"),
    pytest.param(
        {"command_pattern": "grep chan f"}, [bash('bash -lc "grep \\"chan\\" f"')], 1.0, id="escaped-quoted-arg"
    ),
    pytest.param({"command_pattern": "grep chan f"}, [bash("grep chan_x f")], 0.0, id="normalized-still-a-regex"),
    pytest.param(
        {"command_pattern": "grep chan"}, [tool("shell", command=["bash", "-lc", "grep 'chan'"])], 1.0, id="argv-list"
    ),
    # exclude_pattern, also over both forms
    pytest.param({"command_pattern": "pytest", "exclude_pattern": "-k"}, [bash("pytest -k x")], 0.0, id="excluded"),
    pytest.param({"command_pattern": "pytest", "exclude_pattern": "-k"}, [bash("pytest -q")], 1.0, id="not-excluded"),
    pytest.param(
        {"command_pattern": "rm", "exclude_pattern": "rm -rf /tmp"},
        [bash("bash -c 'rm -rf /tmp'")],
        0.0,
        id="exclude-sees-unwrapped",
    ),
    pytest.param(
        {"command_pattern": "rm", "exclude_pattern": "rm -rf /tmp"},
        [bash("rm -rf '/tmp'")],
        0.0,
        id="exclude-sees-unquoted",
    ),
    pytest.param({"exclude_pattern": "secret"}, [bash("ls"), bash("cat secret")], 1.0, id="exclude-only-one-left"),
    pytest.param(
        {"min_count": 0, "max_count": 0, "command_pattern": "^git push --force$"},
        [bash("bash --norc -c 'git push \"--force\"'")],
        0.0,
        id="guard-sees-through-long-option",
    ),
    # non-Bash tools are matched on their rendered parameters
    pytest.param(
        {"tool_name": "Read", "command_pattern": r"file_path=.*config\.yaml"},
        [tool("Read", file_path="/w/config.yaml")],
        1.0,
        id="read-parameters",
    ),
    pytest.param(
        {"tool_name": "Skill", "command_pattern": "skill=deploy"}, [tool("Skill", skill="deploy")], 1.0, id="skill"
    ),
    pytest.param({"command_pattern": "pattern=TODO"}, [tool("Grep", pattern="FIXME", path="src")], 0.0, id="grep-miss"),
]


@pytest.mark.parametrize(("fields", "commands", "score"), MATCH_CASES)
def test_matching(tmp_path: Path, fields: dict[str, Any], commands: list[CommandTelemetry], score: float) -> None:
    result = executed(tmp_path, commands, **fields)
    assert result.evaluation_status == "evaluated"
    assert result.score == pytest.approx(score), result.details


# --- command_executed: counts and bounds ----------------------------------------------------------

COUNT_CASES = [
    # fractional: matches / min_count, capped at 1
    pytest.param({"min_count": 2}, 0, 0.0, False, id="min2-none"),
    pytest.param({"min_count": 2}, 1, 0.5, False, id="min2-one-half"),
    pytest.param({"min_count": 2}, 2, 1.0, True, id="min2-two"),
    pytest.param({"min_count": 2}, 5, 1.0, True, id="min2-five-capped"),
    pytest.param({"min_count": 4}, 3, 0.75, False, id="min4-three"),
    pytest.param({"min_count": 3}, 1, 1 / 3, False, id="min3-one-third"),
    # min 0 + max 0: the command must not run
    pytest.param({"min_count": 0, "max_count": 0}, 0, 1.0, True, id="negative-guard-clean"),
    pytest.param({"min_count": 0, "max_count": 0}, 1, 0.0, False, id="negative-guard-tripped"),
    pytest.param({"min_count": 0}, 0, 1.0, True, id="min0-no-upper-bound"),
    pytest.param({"min_count": 0}, 7, 1.0, True, id="min0-many"),
    # max_count is an inclusive upper bound
    pytest.param({"min_count": 1, "max_count": 2}, 2, 1.0, True, id="at-max"),
    pytest.param({"min_count": 1, "max_count": 2}, 3, 0.0, False, id="above-max"),
    pytest.param({"min_count": 2, "max_count": 3}, 1, 0.5, False, id="below-min-within-max"),
    pytest.param({"max_count": 1}, 1, 1.0, True, id="default-min-max1"),
]


@pytest.mark.parametrize(("bounds", "hits", "score", "passed"), COUNT_CASES)
def test_counts(tmp_path: Path, bounds: dict[str, Any], hits: int, score: float, passed: bool) -> None:
    commands = [bash(f"make build-{i}") for i in range(hits)] + [bash("ls"), tool("Read", file_path="x")]
    result = executed(tmp_path, commands, command_pattern="^make build", **bounds)
    assert result.score == pytest.approx(score), result.details
    assert result.passed is passed


def test_over_max_details_name_the_calls(tmp_path: Path) -> None:
    result = executed(tmp_path, [bash("git push"), bash("git push -f")], command_pattern="git push", max_count=1)
    assert result.score == 0.0
    assert "2 matching calls" in result.details and "git push -f" in result.details


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        pytest.param({"min_count": 2, "max_count": 1}, "below min_count", id="max-below-min"),
        pytest.param({"min_count": -1}, "greater than or equal", id="negative-min"),
        pytest.param({"command_pattern": "("}, None, id="bad-regex"),
        pytest.param({"exclude_pattern": "[a"}, None, id="bad-exclude-regex"),
    ],
)
def test_invalid_specs(fields: dict[str, Any], error: str | None) -> None:
    with pytest.raises(ValidationError, match=error):
        _ADAPTER.validate_python({"type": "command_executed", "description": "probe", **fields})


# --- command_executed: require_success ------------------------------------------------------------

STATUS_CASES = [
    pytest.param(False, "success", 1.0, id="any-success"),
    pytest.param(False, "error", 1.0, id="any-error"),
    pytest.param(False, "unknown", 1.0, id="any-unknown"),
    pytest.param(False, "unresolved", 1.0, id="any-unresolved"),
    pytest.param(True, "success", 1.0, id="required-success"),
    pytest.param(True, "error", 0.0, id="required-error"),
    pytest.param(True, "unknown", 0.0, id="required-unknown"),
    pytest.param(True, "unresolved", 0.0, id="required-unresolved"),
]


@pytest.mark.parametrize(("require_success", "status", "score"), STATUS_CASES)
def test_require_success(tmp_path: Path, require_success: bool, status: str, score: float) -> None:
    result = executed(tmp_path, [bash("npm test", status)], command_pattern="npm test", require_success=require_success)
    assert result.score == score


def test_require_success_counts_only_the_successful_ones(tmp_path: Path) -> None:
    commands = [bash("npm test", "error"), bash("npm test", "unknown"), bash("npm test", "success")]
    result = executed(tmp_path, commands, command_pattern="npm test", require_success=True, min_count=2)
    assert result.score == 0.5


# --- command_executed: turns ----------------------------------------------------------------------

TURN_CASES = [
    pytest.param([[bash("pytest")], [bash("pytest")]], 1.0, id="one-per-turn-summed"),
    pytest.param([[bash("pytest")], [], [bash("ls")]], 0.5, id="empty-turn-in-between"),
    pytest.param([[], [bash("pytest"), bash("pytest -x")]], 1.0, id="all-in-later-turn"),
    pytest.param([[bash("ls")], [bash("ls")]], 0.0, id="no-hit-in-any-turn"),
]


@pytest.mark.parametrize(("turns", "score"), TURN_CASES)
def test_commands_counted_across_turns(tmp_path: Path, turns: list[list[CommandTelemetry]], score: float) -> None:
    result = grade(tmp_path, {"type": "command_executed", "command_pattern": "pytest", "min_count": 2}, turns)
    assert result.score == score


def test_turns_across_max_count(tmp_path: Path) -> None:
    turns = [[bash("rm a")], [bash("rm b")]]
    result = grade(tmp_path, {"type": "command_executed", "command_pattern": "^rm", "max_count": 1}, turns)
    assert result.score == 0.0


@pytest.mark.parametrize(
    ("fields", "turns", "status", "score"),
    [
        pytest.param({"type": "command_executed"}, None, "not_evaluated", 0.0, id="executed-no-agent"),
        pytest.param({"type": "command_executed"}, [], "evaluated", 0.0, id="executed-empty-trajectory"),
        pytest.param(
            {"type": "command_executed", "min_count": 0, "max_count": 0}, [], "evaluated", 1.0, id="guard-empty"
        ),
        pytest.param(
            {"type": "command_executed", "min_count": 0, "max_count": 0},
            None,
            "not_evaluated",
            0.0,
            id="guard-no-agent-is-not-a-pass",
        ),
        pytest.param(
            {"type": "commands_efficiency", "expected_commands": 3}, None, "not_evaluated", 0.0, id="eff-none"
        ),
        pytest.param({"type": "commands_efficiency", "expected_commands": 3}, [], "evaluated", 1.0, id="eff-empty"),
    ],
)
def test_no_agent_versus_empty_trajectory(
    tmp_path: Path, fields: dict[str, Any], turns: list[list[CommandTelemetry]] | None, status: str, score: float
) -> None:
    result = grade(tmp_path, fields, turns)
    assert result.evaluation_status == status
    assert result.score == score
    assert result.passed is (status == "evaluated" and score >= 0.9)


# --- commands_efficiency --------------------------------------------------------------------------

EFFICIENCY_CASES = [
    pytest.param(4, [4], 1.0, id="at-budget"),
    pytest.param(4, [8], 0.5, id="twice-budget"),
    pytest.param(4, [2], 1.0, id="under-budget"),
    pytest.param(4, [0], 1.0, id="no-calls"),
    pytest.param(4, [5], 0.8, id="one-over"),
    pytest.param(1, [4], 0.25, id="four-times-budget"),
    pytest.param(3, [2, 2, 2], 0.5, id="summed-over-turns"),
    pytest.param(8, [3, 0, 5], 1.0, id="summed-at-budget"),
]


@pytest.mark.parametrize(("expected", "per_turn", "score"), EFFICIENCY_CASES)
def test_commands_efficiency(tmp_path: Path, expected: int, per_turn: list[int], score: float) -> None:
    turns = [[tool("Read", "error" if i % 2 else "success", file_path=str(i)) for i in range(n)] for n in per_turn]
    result = grade(tmp_path, {"type": "commands_efficiency", "expected_commands": expected}, turns)
    assert result.score == pytest.approx(score)
    assert f"{sum(per_turn)} tool calls" in result.details


@pytest.mark.parametrize("expected", [0, -1])
def test_commands_efficiency_needs_a_positive_budget(expected: int) -> None:
    with pytest.raises(ValidationError):
        _ADAPTER.validate_python({"type": "commands_efficiency", "description": "probe", "expected_commands": expected})
