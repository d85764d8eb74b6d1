"""Table-driven tests for the `cli_called` criterion: model validation, argv parsing, log reading, scoring."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from coder_eval.common.argv_match import ArgvPattern, FlagTest, mismatches, parse_argv
from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.cli_called import DEFAULT_LOG, CliCalled
from coder_eval.criteria.registry import checker_for
from coder_eval.errors import CheckerMisuseError
from coder_eval.models.criteria_commands import CliCalledCriterion
from coder_eval.models.results import CriterionResult
from coder_eval.sandbox.cli_recorder import CliLogView

Record = dict[str, Any]


def make_spec(**fields: Any) -> CliCalledCriterion:
    return CliCalledCriterion.model_validate({"type": "cli_called", "description": "probe", **fields})


def record(*argv: str, tool: str | None = "uip", **extra: Any) -> Record:
    rec: Record = {"ts": 1785416844.987, "argv": list(argv), **extra}
    if tool is not None:
        rec["tool"] = tool
    return rec


def write_log(root: Path, lines: Sequence[Record | str], rel: str = DEFAULT_LOG) -> Path:
    """Write records (dicts become JSON, strings are written verbatim) as one JSON Lines file."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join((json.dumps(line) if isinstance(line, dict) else line) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def run(root: Path, fields: dict[str, Any], lines: Sequence[Record | str] | None = None) -> CriterionResult:
    """Optionally write the default log, then grade `fields` against the sandbox at `root`."""
    if lines is not None:
        write_log(root, lines)
    return CliCalled().check(make_spec(**fields), CheckContext(root=root))


# --- matching one record -------------------------------------------------------------------------

MATCH_CASES = [
    # verb: an ordered prefix of the non-flag tokens, compared token by token
    pytest.param({"verb": "ixp projects list"}, ["ixp", "projects", "list"], True, id="verb-exact"),
    pytest.param({"verb": "ixp projects list"}, ["ixp", "projects", "list", "p"], True, id="verb-prefix"),
    pytest.param({"verb": "ixp projects"}, ["ixp", "projects", "delete", "p"], True, id="short-verb-takes-all-subs"),
    pytest.param({"verb": "ixp labellings confirm"}, ["ixp", "labellings", "unconfirm"], False, id="confirm-unconfirm"),
    pytest.param({"verb": "ixp projects list"}, ["ixp", "projects", "lists"], False, id="list-vs-lists"),
    pytest.param({"verb": "ixp projects list"}, ["ixp", "projects"], False, id="verb-longer-than-argv"),
    pytest.param({"verb": "ixp projects list"}, ["ixp projects list"], False, id="one-token-with-spaces"),
    pytest.param({"verb": "ixp projects list"}, ["--verbose", "ixp", "projects", "list"], True, id="verb-past-switch"),
    pytest.param({}, ["anything", "--at", "all"], True, id="no-verb-matches-any"),
    # verb_any_of: any complete verb
    pytest.param(
        {"verb_any_of": ["ixp projects list", "ixp projects get"]},
        ["ixp", "projects", "list"],
        True,
        id="any-1",
    ),
    pytest.param(
        {"verb_any_of": ["ixp projects list", "ixp projects get"]},
        ["ixp", "projects", "get"],
        True,
        id="any-2",
    ),
    pytest.param(
        {"verb_any_of": ["ixp projects list", "ixp projects get"]},
        ["ixp", "projects", "delete"],
        False,
        id="any-0",
    ),
    pytest.param(
        {"verb_any_of": ["ixp projects list", "ixp get"], "positional": ["p1"]},
        ["ixp", "get", "p1"],
        True,
        id="any-positional-follows-matched-verb",
    ),
    # positional: a prefix of what follows the verb; the tail stays open
    pytest.param({"verb": "ls", "positional": ["p1"]}, ["ls", "p1"], True, id="positional-exact"),
    pytest.param({"verb": "ls", "positional": ["p1"]}, ["ls", "p1", "dummy"], True, id="positional-open-tail"),
    pytest.param({"verb": "ls", "positional": ["p1"]}, ["ls", "p2"], False, id="positional-wrong"),
    pytest.param({"verb": "ls", "positional": ["p1"]}, ["ls"], False, id="positional-absent"),
    pytest.param({"verb": "cp", "positional": ["a", "b"]}, ["cp", "a", "b"], True, id="positional-in-order"),
    pytest.param({"verb": "cp", "positional": ["a", "b"]}, ["cp", "b", "a"], False, id="positional-out-of-order"),
    pytest.param({"positional": ["ixp", "get"]}, ["ixp", "get", "x"], True, id="positional-without-verb"),
    pytest.param({"verb": "get", "positional": ["--weird"]}, ["get", "--", "--weird"], True, id="after-double-dash"),
    pytest.param({"verb": "get", "positional": ["x"]}, ["get", "--", "x"], True, id="double-dash-not-positional"),
    pytest.param({"verb": "cat", "positional": ["-"]}, ["cat", "-"], True, id="lone-dash-positional"),
    # value-bearing flags must be declared for positionals to line up
    pytest.param({"verb": "get", "positional": ["p1"]}, ["get", "p1", "--folder", "Fin"], True, id="folder-after"),
    pytest.param(
        {"verb": "get", "positional": ["p1"]}, ["get", "--folder", "Fin", "p1"], False, id="folder-undeclared"
    ),
    pytest.param(
        {"verb": "get", "positional": ["p1"], "value_flags": ["folder"]},
        ["get", "--folder", "Fin", "p1"],
        True,
        id="folder-in-value_flags",
    ),
    pytest.param(
        {"verb": "get", "positional": ["p1"], "value_flags": ["--folder"]},
        ["get", "--folder", "Fin", "p1"],
        True,
        id="value_flags-dashes-stripped",
    ),
    pytest.param(
        {"verb": "get", "positional": ["p1"], "flags": {"folder": "Fin"}},
        ["get", "--folder", "Fin", "p1"],
        True,
        id="folder-named-in-flags",
    ),
    pytest.param(
        {"verb": "get", "positional": ["p1"], "flags": {"dir": {"equals": "Fin", "aliases": ["folder"]}}},
        ["get", "--folder", "Fin", "p1"],
        True,
        id="folder-as-alias",
    ),
    pytest.param(
        {"verb": "get", "positional": ["p1"], "flags": {"folder": {"present": True}}},
        ["get", "--folder", "Fin", "p1"],
        False,
        id="present-keeps-switch",
    ),
    # equals (and the bare-scalar shorthand)
    pytest.param({"flags": {"model": "gemini_2_5_pro"}}, ["cfg", "--model", "gemini_2_5_pro"], True, id="equals"),
    pytest.param({"flags": {"model": "gemini_2_5_pro"}}, ["cfg", "--model", "gemini"], False, id="equals-miss"),
    pytest.param({"flags": {"model": {"equals": "g"}}}, ["cfg", "--model=g"], True, id="equals-eq-form"),
    pytest.param({"flags": {"limit": 5}}, ["cfg", "--limit", "5"], True, id="numeric-shorthand"),
    pytest.param({"flags": {"--model": "g"}}, ["cfg", "--model", "g"], True, id="key-dashes-stripped"),
    pytest.param({"flags": {"model": "g"}}, ["cfg", "-model", "g"], True, id="names-compared-without-dashes"),
    pytest.param({"flags": {"name": ""}}, ["cfg", "--name="], True, id="equals-empty-eq-form"),
    # contains / matches_regex / any_of
    pytest.param({"flags": {"model": {"contains": "2_5"}}}, ["cfg", "--model", "gemini_2_5_pro"], True, id="contains"),
    pytest.param(
        {"flags": {"model": {"contains": "3_0"}}},
        ["cfg", "--model", "gemini_2_5_pro"],
        False,
        id="contains-miss",
    ),
    pytest.param({"flags": {"model": {"matches_regex": r"2_\d"}}}, ["cfg", "--model", "gemini_2_5"], True, id="regex"),
    pytest.param(
        {"flags": {"model": {"matches_regex": "^gemini"}}},
        ["cfg", "--name", "gemini", "--model", "gpt"],
        False,
        id="regex-scoped-to-value",
    ),
    pytest.param({"flags": {"model": {"matches_regex": "^GEM"}}}, ["cfg", "--model", "gemini"], False, id="regex-case"),
    pytest.param(
        {"flags": {"model": {"matches_regex": "^GEM", "flags": 2}}},
        ["cfg", "--model", "gemini"],
        True,
        id="regex-i",
    ),
    pytest.param(
        {"flags": {"u": {"matches_regex": "Invoice.*Purchase"}}},
        ["cfg", "--u", "Invoice\nPurchase"],
        False,
        id="no-dotall",
    ),
    pytest.param(
        {"flags": {"u": {"matches_regex": "Invoice.*Purchase", "flags": 16}}},
        ["cfg", "--u", "Invoice\nPurchase"],
        True,
        id="dotall",
    ),
    pytest.param({"flags": {"fmt": {"any_of": ["json", "yaml"]}}}, ["cfg", "--fmt", "yaml"], True, id="any_of"),
    pytest.param({"flags": {"fmt": {"any_of": ["json", "yaml"]}}}, ["cfg", "--fmt", "csv"], False, id="any_of-miss"),
    # present / absent
    pytest.param({"flags": {"force": {"present": True}}}, ["rm", "--force"], True, id="present-switch"),
    pytest.param(
        {"flags": {"level": {"present": True}}, "value_flags": ["level"]},
        ["rm", "--level", "3"],
        True,
        id="present-value",
    ),
    pytest.param({"flags": {"force": {"present": True}}}, ["rm"], False, id="present-missing"),
    pytest.param({"flags": {"force": {"absent": True}}}, ["rm"], True, id="absent"),
    pytest.param({"flags": {"force": {"absent": True}}}, ["rm", "--force"], False, id="absent-switch-passed"),
    pytest.param({"flags": {"force": {"absent": True}}}, ["rm", "--force=true"], False, id="absent-value-passed"),
    pytest.param({"flags": {"model": {"equals": ""}}}, ["cfg", "--model"], False, id="value-flag-without-value"),
    pytest.param({"verb": "cfg"}, ["cfg", "--whatever", "x", "--output", "json"], True, id="unmentioned-flags-ignored"),
    # aliases: one flag, several spellings
    pytest.param({"flags": {"yes": {"present": True, "aliases": ["y"]}}}, ["rm", "-y"], True, id="alias-short"),
    pytest.param({"flags": {"yes": {"present": True, "aliases": ["y"]}}}, ["rm", "--yes"], True, id="alias-long"),
    pytest.param({"flags": {"yes": {"present": True, "aliases": ["y"]}}}, ["rm"], False, id="alias-neither"),
    pytest.param(
        {"flags": {"yes": {"present": True, "aliases": ["-y"]}}}, ["rm", "-y"], True, id="alias-dash-stripped"
    ),
    pytest.param({"flags": {"yes": {"present": True}}}, ["rm", "-y"], False, id="no-alias-short-is-other-flag"),
    pytest.param({"flags": {"yes": {"absent": True, "aliases": ["y"]}}}, ["rm", "-y"], False, id="absent-alias-used"),
    pytest.param({"flags": {"yes": {"absent": True, "aliases": ["y"]}}}, ["rm", "--yes"], False, id="absent-key-used"),
    pytest.param({"flags": {"yes": {"absent": True, "aliases": ["y"]}}}, ["rm"], True, id="absent-neither"),
    pytest.param(
        {"flags": {"fields": {"equals": "f-002", "aliases": ["f"]}}},
        ["get", "-f", "f-002"],
        True,
        id="alias-value",
    ),
    pytest.param(
        {"flags": {"fields": {"equals": "f-002", "aliases": ["f"]}}},
        ["get", "--fields", "f-001", "-f", "f-002"],
        True,
        id="alias-values-gathered",
    ),
    # clustered short flags
    pytest.param({"flags": {"yes": {"present": True, "aliases": ["y"]}}}, ["rm", "-yf", "p1"], True, id="cluster-yf"),
    pytest.param(
        {"flags": {"yes": {"absent": True, "aliases": ["y"]}}},
        ["rm", "-yf", "p1"],
        False,
        id="cluster-no-escape",
    ),
    pytest.param({"flags": {"r": {"present": True}}}, ["rm", "-rf"], True, id="cluster-r"),
    pytest.param({"flags": {"f": {"present": True}}}, ["rm", "-rf"], True, id="cluster-f"),
    pytest.param({"flags": {"rf": {"present": True}}}, ["x", "-rf"], True, id="declared-cluster-whole"),
    pytest.param(
        {"flags": {"r": {"present": True}}, "value_flags": ["rf"]},
        ["x", "-rf"],
        False,
        id="value_flags-keeps-whole",
    ),
    pytest.param(
        {"flags": {"r": {"present": True}}, "ignore_flags": ["rf"]},
        ["x", "-rf"],
        False,
        id="ignore_flags-keeps-whole",
    ),
    pytest.param({"flags": {"f": "value"}}, ["x", "-fvalue"], True, id="fvalue"),
    pytest.param({"flags": {"fields": {"equals": "a", "aliases": ["f"]}}}, ["x", "-fa"], True, id="fvalue-alias"),
    pytest.param(
        {"flags": {"f": "value", "y": {"present": True}}},
        ["x", "-yfvalue"],
        True,
        id="switch-then-attached-value",
    ),
    pytest.param({"flags": {"f": "v", "y": {"present": True}}}, ["x", "-yf", "v"], True, id="cluster-last-takes-next"),
    pytest.param({"flags": {"a": {"present": True}}}, ["x", "-fvalue"], True, id="undeclared-fvalue-is-cluster"),
    pytest.param({"flags": {"o": "json"}}, ["x", "-o=json"], True, id="short-eq-form"),
    # negative numbers
    pytest.param({"verb": "seek", "positional": ["-1"]}, ["seek", "-1"], True, id="negative-positional"),
    pytest.param({"verb": "seek", "positional": ["-1.5"]}, ["seek", "-1.5"], True, id="negative-decimal-positional"),
    pytest.param({"verb": "seek", "positional": ["-1", "x"]}, ["seek", "-1", "x"], True, id="negative-takes-no-value"),
    pytest.param(
        {"verb": "head", "flags": {"1": {"present": True}}}, ["head", "-1"], True, id="declared-negative-flag"
    ),
    pytest.param(
        {"verb": "head", "positional": ["f"], "flags": {"1": {"present": True}}},
        ["head", "-1", "f"],
        True,
        id="declared-negative-frees-slot",
    ),
    pytest.param(
        {"verb": "head", "positional": ["f"]}, ["head", "-1", "f"], False, id="undeclared-negative-takes-slot"
    ),
    # the equals form binds directly; declared value flags bind dash-leading values
    pytest.param({"flags": {"offset": "-1"}}, ["ls", "--offset=-1"], True, id="eq-form-negative"),
    pytest.param(
        {"verb": "ls", "positional": ["p1"]}, ["ls", "--offset=-1", "p1"], True, id="eq-form-consumes-nothing"
    ),
    pytest.param({"flags": {"limit": "-1"}}, ["ls", "--limit", "-1"], True, id="declared-binds-dash-value"),
    pytest.param(
        {"verb": "ls", "positional": ["p1"], "value_flags": ["limit"]},
        ["ls", "--limit", "-1", "p1"],
        True,
        id="declared-dash-value-keeps-positional",
    ),
    # repeated flags: any one value satisfies
    pytest.param({"flags": {"fields": "a"}}, ["get", "--fields", "a", "--fields", "b"], True, id="repeated-first"),
    pytest.param({"flags": {"fields": "b"}}, ["get", "--fields", "a", "--fields", "b"], True, id="repeated-second"),
    pytest.param({"flags": {"fields": "c"}}, ["get", "--fields", "a", "--fields", "b"], False, id="repeated-none"),
    # ignore_flags
    pytest.param({"verb": "ls", "positional": ["p1"]}, ["ls", "--output", "json", "p1"], True, id="output-default"),
    pytest.param(
        {"verb": "ls", "positional": ["p1"], "ignore_flags": ["output", "verbose"]},
        ["ls", "--output", "json", "--verbose", "p1"],
        True,
        id="output-kept-in-custom-list",
    ),
    pytest.param(
        {"verb": "ls", "positional": ["p1"], "ignore_flags": []},
        ["ls", "--output", "json", "p1"],
        False,
        id="output-not-ignored-is-switch",
    ),
    pytest.param(
        {"verb": "rm", "positional": ["p1"], "ignore_flags": ["verbose"]},
        ["rm", "--verbose", "p1"],
        True,
        id="ignored-flag-stays-switch",
    ),
    pytest.param(
        {"verb": "rm", "positional": ["p1"], "ignore_flags": ["trace"], "value_flags": ["trace"]},
        ["rm", "--trace", "3", "p1"],
        True,
        id="ignored-value-flag",
    ),
]


@pytest.mark.parametrize(("fields", "argv", "matches"), MATCH_CASES)
def test_single_record_matches_pattern(tmp_path: Path, fields: dict[str, Any], argv: list[str], matches: bool) -> None:
    result = run(tmp_path, fields, [record(*argv)])
    assert result.error is None
    assert result.score == (1.0 if matches else 0.0), result.details


TOOL_CASES = [
    pytest.param({"tool": "uip"}, "uip", True, id="same-tool"),
    pytest.param({"tool": "uip"}, "curl", False, id="other-tool"),
    pytest.param({"tool": "uip"}, None, False, id="record-without-tool"),
    pytest.param({}, "curl", True, id="no-filter"),
    pytest.param({}, None, True, id="no-filter-no-tool"),
]


@pytest.mark.parametrize(("fields", "tool", "matches"), TOOL_CASES)
def test_tool_filter(tmp_path: Path, fields: dict[str, Any], tool: str | None, matches: bool) -> None:
    result = run(tmp_path, {"verb": "ixp", **fields}, [record("ixp", tool=tool)])
    assert result.score == (1.0 if matches else 0.0), result.details


# --- counting ------------------------------------------------------------------------------------

DELETE_GUARD = {"verb": "ixp fields delete", "positional": ["proj-1"], "min_count": 0, "max_count": 0}

COUNT_CASES = [
    pytest.param(DELETE_GUARD, [["ixp", "fields", "delete", "--yes", "proj-1"]], 0.0, id="guard-catches---yes"),
    pytest.param(DELETE_GUARD, [["ixp", "fields", "delete", "-yf", "proj-1"]], 0.0, id="guard-catches-cluster"),
    pytest.param(DELETE_GUARD, [["ixp", "fields", "delete", "--yes", "proj-2"]], 1.0, id="guard-other-target"),
    pytest.param(DELETE_GUARD, [], 1.0, id="guard-empty-log"),
    pytest.param(
        {**DELETE_GUARD, "flags": {"yes": {"present": True}}},
        [["ixp", "fields", "delete", "-y", "proj-1"]],
        1.0,
        id="overspecified-guard-escapes-via-short-flag",
    ),
    pytest.param({"verb": "x"}, [], 0.0, id="min1-empty-log"),
    pytest.param({"verb": "x"}, [["y"], ["x"]], 1.0, id="min1-one"),
    pytest.param({"verb": "x", "min_count": 2}, [["x"]], 0.0, id="min2-one"),
    pytest.param({"verb": "x", "min_count": 2}, [["x"], ["x", "a"]], 1.0, id="min2-two"),
    pytest.param({"verb": "x", "max_count": 1}, [["x"], ["x"]], 0.0, id="max1-two"),
    pytest.param({"verb": "x", "min_count": 1, "max_count": 3}, [["x"], ["x"], ["x"]], 1.0, id="range-upper-edge"),
    pytest.param({"verb": "x", "min_count": 0}, [["y"]], 1.0, id="min0-none"),
]


@pytest.mark.parametrize(("fields", "argvs", "score"), COUNT_CASES)
def test_count_bounds(tmp_path: Path, fields: dict[str, Any], argvs: list[list[str]], score: float) -> None:
    result = run(tmp_path, fields, [record(*argv) for argv in argvs])
    assert result.score == score, result.details


@pytest.mark.parametrize(
    ("bounds", "wanted"),
    [
        pytest.param({}, "at least 1", id="default"),
        pytest.param({"min_count": 0, "max_count": 0}, "exactly 0", id="forbidden"),
        pytest.param({"min_count": 0, "max_count": 2}, "at most 2", id="upper-only"),
        pytest.param({"min_count": 1, "max_count": 3}, "1 to 3", id="range"),
    ],
)
def test_details_report_records_read_matched_and_wanted(tmp_path: Path, bounds: dict[str, Any], wanted: str) -> None:
    result = run(tmp_path, {"verb": "x", **bounds}, [record("x"), record("y")])
    assert f"read 2 records, 1 matched (wanted {wanted})" in result.details


def test_too_few_shows_at_most_five_nearest_misses_closest_first(tmp_path: Path) -> None:
    lines = [record("other", str(i)) for i in range(6)] + [record("ls", "proj-2", exit=1)]
    result = run(tmp_path, {"verb": "ls", "positional": ["proj-1"]}, lines)
    assert result.score == 0.0
    assert result.details.count("line ") == 5
    assert "nearest misses: line 7, exit 1: uip ls proj-2 (missed positional)" in result.details
    assert "(missed verb)" in result.details


def test_too_many_shows_the_matching_calls(tmp_path: Path) -> None:
    result = run(tmp_path, DELETE_GUARD, [record("ls"), record("ixp", "fields", "delete", "--yes", "proj-1", exit=0)])
    assert result.score == 0.0
    assert "matching: line 2, exit 0: uip ixp fields delete --yes proj-1" in result.details


def test_long_argv_is_clipped_in_details(tmp_path: Path) -> None:
    result = run(tmp_path, {"verb": "ls"}, [record("put", "--body", "x" * 5000)])
    assert result.score == 0.0
    assert "…" in result.details
    assert len(result.details) < 400


def test_a_quoted_argument_is_shown_quoted(tmp_path: Path) -> None:
    result = run(tmp_path, {"verb": "ls"}, [record("put", "two words")])
    assert "uip put 'two words'" in result.details


# --- the log -------------------------------------------------------------------------------------

BAD_LOGS = [
    pytest.param([json.dumps(record("a")), "not json"], "line 2 is not valid JSON", id="not-json"),
    pytest.param(['["a", "b"]'], "line 1 is an array, not a JSON object", id="array-line"),
    pytest.param(['"a b"'], "line 1 is a string, not a JSON object", id="string-line"),
    pytest.param(
        ['{"argv": "ixp projects"}'],
        "line 1: `argv` must be a list of strings (found a string)",
        id="argv-str",
    ),
    pytest.param(['{"argv": ["a", 1]}'], "found an array with a non-string element", id="argv-non-string"),
    pytest.param(['{"argv": null}'], "found null", id="argv-null"),
    pytest.param(['{"tool": "uip"}'], "line 1: `argv` must be a list of strings (found no argv key)", id="no-argv"),
    pytest.param(['{"argv": ["a"], "tool": 3}'], "line 1: `tool` must be a string (found a number)", id="tool-number"),
    pytest.param(["", json.dumps(record("a")), "   ", "{bad"], "line 4 is not valid JSON", id="blank-lines-counted"),
]


@pytest.mark.parametrize(("lines", "message"), BAD_LOGS)
@pytest.mark.parametrize("fields", [{"verb": "a"}, DELETE_GUARD], ids=["positive", "guard"])
def test_unusable_record_fails_with_line_number(
    tmp_path: Path, lines: list[str], message: str, fields: dict[str, Any]
) -> None:
    result = run(tmp_path, fields, list(lines))
    assert result.score == 0.0
    assert result.error is not None
    assert message in result.error
    assert DEFAULT_LOG in result.error


def test_invalid_utf8_is_unusable(tmp_path: Path) -> None:
    log = tmp_path / DEFAULT_LOG
    log.parent.mkdir()
    log.write_bytes(b'{"argv": ["a"]}\n{"argv": ["\xff"]}\n')
    result = CliCalled().check(make_spec(**DELETE_GUARD), CheckContext(root=tmp_path))
    assert result.score == 0.0
    assert result.error is not None
    assert "line 2 is not valid UTF-8" in result.error


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('\n\n{"argv": ["a"]}\n   \n\t\n', id="blank-lines"),
        pytest.param('{"argv": ["a"]}\r\n{"argv": ["b"]}\r\n', id="crlf"),
        pytest.param('{"argv": ["a"]}', id="no-trailing-newline"),
        pytest.param('{"argv": ["a"], "exit": "boom", "ts": "x", "rule": 0, "extra": {"k": 1}}\n', id="extra-keys"),
        pytest.param('{"argv": ["a"], "tool": null}\n', id="null-tool"),
        pytest.param('{"argv": ["a", "x\u2028y"]}\n', id="unicode-line-separator-in-string"),
    ],
)
def test_readable_logs_pass(tmp_path: Path, text: str) -> None:
    log = tmp_path / DEFAULT_LOG
    log.parent.mkdir()
    log.write_text(text, encoding="utf-8")
    result = CliCalled().check(make_spec(verb="a"), CheckContext(root=tmp_path))
    assert result.error is None
    assert result.score == 1.0, result.details


@pytest.mark.parametrize("fields", [{"verb": "a"}, DELETE_GUARD], ids=["positive", "guard"])
def test_missing_default_log_fails_and_says_where(tmp_path: Path, fields: dict[str, Any]) -> None:
    result = run(tmp_path, fields)
    assert result.score == 0.0
    assert result.error is not None
    assert f"{DEFAULT_LOG} does not exist" in result.error
    assert str(tmp_path) in result.error


@pytest.mark.parametrize(
    ("log", "files", "message"),
    [
        pytest.param("mocks/*.jsonl", [], "no file matches mocks/*.jsonl", id="glob-no-match"),
        pytest.param("mocks/*.jsonl", ["mocks/a.jsonl", "mocks/b.jsonl"], "is ambiguous", id="glob-ambiguous"),
        pytest.param("mocks", ["mocks/a.jsonl"], "is a directory", id="directory"),
        pytest.param("mocks/calls.jsonl", ["cli_mocks/calls.jsonl"], "does not exist", id="custom-log-missing"),
    ],
)
def test_unusable_log_path_fails(tmp_path: Path, log: str, files: list[str], message: str) -> None:
    for rel in files:
        write_log(tmp_path, [record("a")], rel)
    result = CliCalled().check(make_spec(log=log, **DELETE_GUARD), CheckContext(root=tmp_path))
    assert result.score == 0.0
    assert result.error is not None
    assert message in result.error


@pytest.mark.parametrize(
    ("log", "resolved"),
    [
        pytest.param("mocks/*.jsonl", "resolved: mocks/calls.jsonl", id="glob"),
        pytest.param("mocks/calls.jsonl", "", id="literal"),
    ],
)
def test_custom_log_path(tmp_path: Path, log: str, resolved: str) -> None:
    write_log(tmp_path, [record("a")], "mocks/calls.jsonl")
    result = CliCalled().check(make_spec(log=log, verb="a"), CheckContext(root=tmp_path))
    assert result.score == 1.0
    assert result.details.startswith(resolved or "read 1 records")


def test_log_outside_the_sandbox_is_a_misuse(tmp_path: Path) -> None:
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    write_log(tmp_path, [record("a")], "outside.jsonl")
    with pytest.raises(CheckerMisuseError):
        CliCalled().check(make_spec(log="../outside.jsonl", verb="a"), CheckContext(root=sandbox))


def test_registered_as_cli_called() -> None:
    assert isinstance(checker_for("cli_called"), CliCalled)


# --- argv parsing (pure) -------------------------------------------------------------------------

NONE: frozenset[str] = frozenset()

PARSE_CASES = [
    pytest.param(["a", "--x", "b"], NONE, NONE, ("a", "b"), {"x": ()}, id="undeclared-is-switch"),
    pytest.param(["a", "--x", "b"], frozenset({"x"}), NONE, ("a",), {"x": ("b",)}, id="declared-takes-next"),
    pytest.param(["--x"], frozenset({"x"}), NONE, (), {"x": ()}, id="declared-at-end"),
    pytest.param(["--x=1", "--x=2"], NONE, NONE, (), {"x": ("1", "2")}, id="eq-form-repeated"),
    pytest.param(["--limit", "-1"], frozenset({"limit"}), NONE, (), {"limit": ("-1",)}, id="dash-value"),
    pytest.param(["-rf"], NONE, NONE, (), {"r": (), "f": ()}, id="cluster"),
    pytest.param(["-rf"], NONE, frozenset({"rf"}), (), {"rf": ()}, id="declared-cluster"),
    pytest.param(["-fvalue"], frozenset({"f"}), NONE, (), {"f": ("value",)}, id="attached-value"),
    pytest.param(["-yfv"], frozenset({"f"}), NONE, (), {"y": (), "f": ("v",)}, id="switch-then-attached"),
    pytest.param(["-yf", "v"], frozenset({"f"}), NONE, (), {"y": (), "f": ("v",)}, id="cluster-tail-takes-next"),
    pytest.param(["-yf=v"], NONE, NONE, (), {"y": (), "f": ("v",)}, id="cluster-eq"),
    pytest.param(["-yf=", "x"], NONE, NONE, ("x",), {"y": (), "f": ("",)}, id="cluster-eq-empty-consumes-nothing"),
    pytest.param(["-1"], NONE, NONE, ("-1",), {}, id="negative"),
    pytest.param(["-.5", "-2.25"], NONE, NONE, ("-.5", "-2.25"), {}, id="negative-decimals"),
    pytest.param(["-1"], NONE, frozenset({"1"}), (), {"1": ()}, id="declared-negative"),
    pytest.param(["-", "x"], NONE, NONE, ("-", "x"), {}, id="lone-dash"),
    pytest.param(["a", "--", "-y", "--", "--z"], NONE, NONE, ("a", "-y", "--", "--z"), {}, id="double-dash"),
]


@pytest.mark.parametrize(("argv", "value_bearing", "declared", "positionals", "flags"), PARSE_CASES)
def test_parse_argv(
    argv: list[str],
    value_bearing: frozenset[str],
    declared: frozenset[str],
    positionals: tuple[str, ...],
    flags: dict[str, tuple[str, ...]],
) -> None:
    parsed = parse_argv(argv, value_bearing=value_bearing, declared=declared)
    assert parsed.positionals == positionals
    assert dict(parsed.flags) == flags


def test_ignored_flags_are_dropped_before_predicates() -> None:
    pattern = ArgvPattern(flag_tests=(FlagTest(("verbose",), "absent"),), ignore_flags=frozenset({"verbose"}))
    assert mismatches(pattern, ["--verbose"]) == []


def test_mismatches_name_every_failed_facet() -> None:
    pattern = ArgvPattern(
        tool="uip",
        verbs=(("ls",),),
        flag_tests=(FlagTest(("model",), "equals", ("g",)), FlagTest(("yes",), "present")),
    )
    assert mismatches(pattern, ["get", "--model", "h"], "curl") == ["tool", "verb", "flag model", "flag yes"]
    assert mismatches(pattern, ["ls", "--model", "g", "--yes"], "uip") == []


# --- model validation ----------------------------------------------------------------------------

INVALID_SPECS = [
    pytest.param({"verb": "a", "verb_any_of": ["b"]}, "mutually exclusive", id="verb-and-verb_any_of"),
    pytest.param({"verb_any_of": ["ixp projects", "ixp projects list"]}, "is a prefix of", id="prefix-entries"),
    pytest.param({"verb_any_of": ["ixp get", "ixp get"]}, "is a prefix of", id="duplicate-entries"),
    pytest.param({"verb_any_of": []}, "at least one verb", id="empty-verb_any_of"),
    pytest.param({"verb": "   "}, "at least one token", id="blank-verb"),
    pytest.param({"verb": "ixp --force delete"}, "contains the flag", id="flag-in-verb"),
    pytest.param({"verb_any_of": ["ixp get", "ixp -y rm"]}, "contains the flag", id="flag-in-verb_any_of"),
    pytest.param({"positional": []}, "asserts nothing", id="empty-positional"),
    pytest.param({"flags": {"output": "json"}}, "ignore_flags", id="predicate-on-default-ignored"),
    pytest.param(
        {"flags": {"verbose": {"present": True}}, "ignore_flags": ["--verbose"]},
        "ignore_flags",
        id="predicate-on-ignored",
    ),
    pytest.param(
        {"flags": {"yes": {"present": True, "aliases": ["y"]}, "y": {"absent": True}}},
        "more than one predicate",
        id="alias-is-another-key",
    ),
    pytest.param(
        {"flags": {"a": {"present": True, "aliases": ["x"]}, "b": {"present": True, "aliases": ["x"]}}},
        "more than one predicate",
        id="alias-shared",
    ),
    pytest.param(
        {"flags": {"yes": {"present": True, "aliases": ["v"]}}, "ignore_flags": ["v"]},
        "also in ignore_flags",
        id="alias-ignored",
    ),
    pytest.param(
        {"flags": {"m": {"equals": "x", "flags": 2}}}, "only applies to matches_regex", id="flags-with-equals"
    ),
    pytest.param(
        {"flags": {"m": {"present": True, "flags": 2}}},
        "only applies to matches_regex",
        id="flags-with-present",
    ),
    pytest.param({"flags": {"m": {"equals": "a", "contains": "b"}}}, "exactly one", id="two-predicates"),
    pytest.param({"flags": {"m": {}}}, "exactly one", id="no-predicate"),
    pytest.param({"flags": {"m": {"aliases": ["n"]}}}, "exactly one", id="aliases-only"),
    pytest.param({"flags": {"m": {"matches_regex": "("}}}, "not a valid regular expression", id="bad-regex"),
    pytest.param({"flags": {"m": {"any_of": []}}}, "at least one value", id="empty-any_of"),
    pytest.param({"flags": {"m": {"absent": False}}}, "absent", id="absent-false"),
    pytest.param({"flags": {"m": True}}, "valid dictionary", id="bool-is-not-shorthand"),
    pytest.param(
        {"flags": {"--yes": {"present": True}, "yes": {"absent": True}}}, "given twice", id="dup-after-dashes"
    ),
    pytest.param({"value_flags": ["--"]}, "not a flag name", id="dashes-only-name"),
    pytest.param({"flags": {"a=b": "x"}}, "not a flag name", id="name-with-equals"),
    pytest.param({"flags": {"m": {"present": True, "aliases": ["--"]}}}, "not a flag name", id="alias-dashes-only"),
    pytest.param({"min_count": 1, "max_count": 0}, "below min_count", id="max-below-min"),
    pytest.param({"min_count": -1}, "greater than or equal", id="negative-min"),
    pytest.param({"verbs": "a"}, "Extra inputs", id="unknown-key"),
]


@pytest.mark.parametrize(("fields", "message"), INVALID_SPECS)
def test_invalid_specs_are_rejected_at_load(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as info:
        make_spec(**fields)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("gemini", "gemini", id="string"),
        pytest.param(5, "5", id="int"),
        pytest.param(2.5, "2.5", id="float"),
        pytest.param("", "", id="empty-string"),
    ],
)
def test_bare_scalar_is_equals(raw: Any, expected: str) -> None:
    pred = make_spec(flags={"model": raw}).flags["model"]
    assert pred.predicate == "equals"
    assert pred.equals == expected


def test_names_are_stored_without_dashes_and_defaults_apply() -> None:
    spec = make_spec(
        flags={"--yes": {"present": True, "aliases": ["-y"]}}, value_flags=["--folder"], ignore_flags=["-o"]
    )
    assert list(spec.flags) == ["yes"]
    assert spec.flags["yes"].aliases == ["y"]
    assert spec.value_flags == ["folder"]
    assert spec.ignore_flags == ["o"]
    defaults = make_spec()
    assert (defaults.log, defaults.ignore_flags, defaults.min_count, defaults.max_count) == (
        None,
        ["output"],
        1,
        None,
    )


def test_regex_with_re_flags_is_accepted() -> None:
    pred = make_spec(flags={"u": {"matches_regex": "a.*b", "flags": 16}}).flags["u"]
    assert (pred.predicate, pred.flags, pred.takes_value) == ("matches_regex", 16, True)


# --- the harness-owned log (record_cli's recorder) ---------------------------------------------


class _Recorded:
    """A CliLog as the engine hands it over: the recorder's view of the unit's calls."""

    def __init__(self, lines: Sequence[Record], problem: str | None = None, notes: tuple[str, ...] = ()) -> None:
        self.data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        self.problem, self.notes = problem, notes

    def view(self) -> CliLogView:
        return CliLogView(self.data, "the harness's record", self.problem, self.notes)


@pytest.mark.parametrize("log", [None, DEFAULT_LOG], ids=["default", "named-default"])
def test_the_harness_record_wins_over_a_forged_workspace_log(tmp_path: Path, log: str | None) -> None:
    """The attack: run the forbidden delete, then rewrite cli_mocks/calls.jsonl to hide it."""
    write_log(tmp_path, [record("repo", "list")])  # the forged workspace copy
    harness = _Recorded([record("repo", "delete", "org/x", tool="gh")])
    fields: dict[str, Any] = {"verb": "repo delete", "max_count": 0, "min_count": 0}
    if log is not None:
        fields["log"] = log
    result = CliCalled().check(make_spec(**fields), CheckContext(root=tmp_path, cli_log=harness))
    assert result.score == 0.0, result.details
    assert "repo delete org/x" in result.details and "the harness's record" in result.details


def test_an_authors_own_log_is_read_from_the_workspace_and_says_so(tmp_path: Path) -> None:
    write_log(tmp_path, [record("a")], "mocks/calls.jsonl")
    ctx = CheckContext(root=tmp_path, cli_log=_Recorded([]))
    result = CliCalled().check(make_spec(log="mocks/calls.jsonl", verb="a"), ctx)
    assert result.score == 1.0
    assert "which the agent can write" in result.details


def test_an_untrustworthy_harness_record_is_an_error_not_a_count(tmp_path: Path) -> None:
    harness = _Recorded([], problem="the socket was replaced")
    result = CliCalled().check(make_spec(**DELETE_GUARD), CheckContext(root=tmp_path, cli_log=harness))
    assert result.score == 0.0
    assert result.error is not None and "socket was replaced" in result.error


def test_refused_calls_are_shown_with_the_count(tmp_path: Path) -> None:
    harness = _Recorded([record("a")], notes=("2 call(s) refused, unanswered and unrecorded (too large)",))
    result = CliCalled().check(make_spec(verb="a"), CheckContext(root=tmp_path, cli_log=harness))
    assert result.score == 1.0 and "2 call(s) refused" in result.details


@pytest.mark.parametrize(("suffix", "said"), [(".unrecorded", "disk full"), (".error", "")])
def test_a_failed_write_marker_makes_the_log_untrustworthy(tmp_path: Path, suffix: str, said: str) -> None:
    """Ours (`.unrecorded`) or the reference's recorder (`.error`): the log is incomplete, score 0 and why."""
    log = write_log(tmp_path, [record("deploy")])
    log.with_name(log.name + suffix).write_text(said)
    for fields in (
        {"tool": "uip", "verb": "deploy"},
        {"tool": "uip", "verb": "deploy", "min_count": 0, "max_count": 0},
    ):
        result = run(tmp_path, fields)
        assert result.score == 0.0  # a negative guard fails too: the missing record could be the forbidden call
        assert result.error is not None and f"calls.jsonl{suffix} is beside it" in result.error
        assert (f"({said})" in result.error) is bool(said)
        assert "no count read from it can be trusted" in result.details
