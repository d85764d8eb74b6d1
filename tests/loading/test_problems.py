"""What a user reads when a task file is wrong: the YAML path, the line, and a suggested fix."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from coder_eval.errors import Problem, TaskConfigError
from coder_eval.loading.loader import load_task_file, read_task_file


def write(tmp_path: Path, text: str, name: str = "task.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in {path}")


def problems(path: Path) -> list[Problem]:
    with pytest.raises(TaskConfigError) as info:
        load_task_file(path)
    assert info.value.file == path
    return info.value.problems


def only(path: Path) -> Problem:
    found = problems(path)
    assert len(found) == 1, [f"{p.field_path}: {p.message}" for p in found]
    return found[0]


GOOD_TOP = """
task_id: demo
description: A demo task
initial_prompt: Write hello.txt
"""


def test_valid_file_loads_and_returns_raw_mapping(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
success_criteria:
  - type: file_exists
    path: hello.txt
    description: hello.txt exists
""",
    )
    task, raw = load_task_file(path)
    assert task.task_id == "demo"
    assert raw["success_criteria"][0]["path"] == "hello.txt"


def test_unknown_criterion_key_suggests_the_right_name_with_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
success_criteria:
  - type: file_contains
    path: app.py
    inclues: ["Hello"]
    description: greets
""",
    )
    p = only(path)
    assert p.message == "unknown key 'inclues'"
    assert p.hint == "did you mean 'includes'?"
    assert p.field_path == f"success_criteria[0].inclues (line {line_of(path, 'inclues')})"
    rendered = TaskConfigError(path, [p]).render()
    assert rendered.startswith(f"{path}: success_criteria[0].inclues (line 8): unknown key 'inclues'")
    assert rendered.endswith("(did you mean 'includes'?)")


def test_unknown_key_in_a_later_criterion_points_at_that_criterion(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
success_criteria:
  - type: file_exists
    path: a.txt
    description: a exists
  - type: run_command
    command: pytest
    timout: 60
    description: tests pass
""",
    )
    p = only(path)
    assert p.field_path == f"success_criteria[1].timout (line {line_of(path, 'timout')})"
    assert p.hint == "did you mean 'timeout'?"


def test_unknown_criterion_type_suggests_the_close_one(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
success_criteria:
  - type: file_contain
    path: app.py
    includes: [x]
    description: d
""",
    )
    p = only(path)
    assert p.message == "unknown type 'file_contain'"
    assert p.hint == "did you mean 'file_contains'?"
    assert p.field_path == f"success_criteria[0] (line {line_of(path, 'file_contain')})"


def test_unknown_criterion_type_without_a_close_match_lists_the_types(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
success_criteria:
  - {type: zzz, description: d}
""",
    )
    p = only(path)
    assert p.message == "unknown type 'zzz'"
    assert p.hint.startswith("expected one of:")
    for kind in ("file_exists", "json_check", "llm_judge", "uipath_eval"):
        assert kind in p.hint


def test_unknown_top_level_key(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
succes_criteria:
  - {type: file_exists, path: a, description: d}
""",
    )
    found = {p.field_path: p for p in problems(path)}
    typo = found[f"succes_criteria (line {line_of(path, 'succes_criteria')})"]
    assert typo.message == "unknown key 'succes_criteria'"
    assert typo.hint == "did you mean 'success_criteria'?"
    # ...and the real field is reported missing in the same pass
    assert any(
        p.message == "required field is missing" and p.field_path.startswith("success_criteria") for p in found.values()
    )


def test_unknown_top_level_key_without_a_close_match_is_a_warning_not_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
owner: me
success_criteria:
  - {type: file_exists, path: a, description: d}
""",
    )
    loaded = read_task_file(path)
    (warning,) = loaded.warnings
    assert warning.render() == (
        f"owner (line {line_of(path, 'owner')}): unknown top-level key, ignored "
        "(it is not a task field; remove it if it is not meant for you)"
    )
    assert "owner" not in loaded.raw


def test_nested_agent_key_typo_suggests_permission_mode(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
agent:
  type: claude-code
  permision_mode: plan
success_criteria:
  - {type: file_exists, path: a, description: d}
""",
    )
    p = only(path)
    assert p.message == "unknown key 'permision_mode'"
    assert p.hint == "did you mean 'permission_mode'?"
    assert p.field_path == f"agent.permision_mode (line {line_of(path, 'permision_mode')})"


def test_agent_key_typo_is_checked_against_the_agent_kinds_own_fields(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
agent:
  type: antigravity
  thinking_levl: high
success_criteria:
  - {type: file_exists, path: a, description: d}
""",
    )
    p = only(path)
    assert p.field_path.startswith("agent.thinking_levl")
    assert p.hint == "did you mean 'thinking_level'?"


def test_unknown_agent_type_names_the_known_types(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
agent:
  type: claud-code
success_criteria:
  - {type: file_exists, path: a, description: d}
""",
    )
    p = only(path)
    assert p.field_path == f"agent (line {line_of(path, 'agent:')})"
    assert "Did you mean 'claude-code'?" in p.message
    assert "Known types:" in p.message and "codex" in p.message


def test_deeply_nested_key_typo_in_the_sandbox(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
sandbox:
  template_sources:
    - type: starter_files
      files:
        - path: README.md
          contnet: hello
success_criteria:
  - {type: file_exists, path: a, description: d}
""",
    )
    p = only(path)
    assert p.field_path == f"sandbox.template_sources[0].files[0].contnet (line {line_of(path, 'contnet')})"
    assert p.hint == "did you mean 'content'?"


def test_value_errors_read_without_pydantic_prefix(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
tags: [Smoke]
success_criteria:
  - {type: file_exists, path: a, description: d}
""",
    )
    p = only(path)
    assert p.field_path == f"tags (line {line_of(path, 'tags:')})"
    assert p.message.startswith("tag 'Smoke' must be lowercase kebab-case")
    assert "Value error" not in p.message


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
success_criteria:
  - {type: file_exists, path: a, description: d
""",
    )
    p = only(path)
    assert p.message.startswith("not valid YAML")
    assert p.field_path.startswith("line ")
    assert p.hint == "fix the YAML syntax"
    line = int(p.field_path.split()[1].rstrip(","))
    assert line >= line_of(path, "{type: file_exists")


def test_yaml_indentation_error_names_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
task_id: demo
description: A demo task
  initial_prompt: misindented
success_criteria: []
""",
    )
    p = only(path)
    assert p.message.startswith("not valid YAML")
    assert p.field_path.startswith(f"line {line_of(path, 'initial_prompt')},")


def test_tab_indentation_is_a_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "task.yaml"
    path.write_text("task_id: demo\nsandbox:\n\tdriver: tempdir\n", encoding="utf-8")
    p = only(path)
    assert p.message.startswith("not valid YAML")
    assert p.field_path.startswith("line 3,")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("- task_id: demo\n- task_id: other\n", "list"),
        ("just a string\n", "str"),
        ("42\n", "int"),
        ("", "empty"),
        ("# only a comment\n", "empty"),
    ],
    ids=["list", "scalar", "number", "empty-file", "comment-only"],
)
def test_non_mapping_document(tmp_path: Path, text: str, kind: str) -> None:
    path = tmp_path / "task.yaml"
    path.write_text(text, encoding="utf-8")
    p = only(path)
    assert p.message == f"a task file must be a YAML mapping, not {kind}"
    assert "task_id" in p.hint


def test_missing_file(tmp_path: Path) -> None:
    p = only(tmp_path / "nope.yaml")
    assert p.message == "file not found"


def test_several_problems_are_reported_together(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
task_id: "bad id"
description: A demo task
initial_prompt: go
tags: [ok, Not-Ok]
agent:
  permision_mode: plan
run_limits:
  max_turns: 0
success_criteria:
  - type: file_contains
    path: a.py
    inclues: [x]
    description: d
  - type: json_chek
    path: r.json
    description: d
""",
    )
    found = problems(path)
    by_path = {p.field_path.split(" (line")[0]: p for p in found}
    assert set(by_path) >= {
        "task_id",
        "tags",
        "agent.permision_mode",
        "run_limits.max_turns",
        "success_criteria[0].inclues",
        "success_criteria[1]",
    }
    assert by_path["success_criteria[1]"].hint == "did you mean 'json_check'?"
    assert by_path["agent.permision_mode"].hint == "did you mean 'permission_mode'?"
    for p in found:
        assert "(line " in p.field_path, p
    # one exception, one line per problem when rendered
    with pytest.raises(TaskConfigError) as info:
        load_task_file(path)
    assert str(info.value).count(str(path)) == len(found)


def test_line_numbers_for_problems_in_flow_style(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_TOP
        + """
success_criteria:
  - {type: file_exists, path: a, description: d}
  - {type: file_exists, path: b, descriptoin: d}
""",
    )
    found = problems(path)
    typo = next(p for p in found if p.message == "unknown key 'descriptoin'")
    assert typo.field_path == f"success_criteria[1].descriptoin (line {line_of(path, 'descriptoin')})"
    assert typo.hint == "did you mean 'description'?"


NESTED_TYPOS = [
    ("sandbox:\n  limits: {max_memry_mb: 3}\n", "sandbox.limits.max_memry_mb", "max_memory_mb"),
    ("sandbox:\n  record_cli: [{tool: uip, exitcode: 0}]\n", "sandbox.record_cli[0].exitcode", "exit_code"),
    ("sandbox:\n  docker: {imag: x}\n", "sandbox.docker.imag", "image"),
    ("dataset: {rows: [{id: a}], id_feild: x}\n", "dataset.id_feild", "id_field"),
    ("pre_run: [{command: x, timeot: 3}]\n", "pre_run[0].timeot", "timeout"),
    ("checker_context: {api_route: {route: direct, modl: x}}\n", "checker_context.api_route.modl", "model"),
    ("simulation: {persona: p, goal: g, max_turn: 3}\n", "simulation.max_turn", "max_turns"),
    ("reference: {directry: ref}\n", "reference.directry", "directory"),
]


@pytest.mark.parametrize(("block", "where", "suggestion"), NESTED_TYPOS, ids=[w for _, w, _ in NESTED_TYPOS])
def test_nested_typos_suggest_the_field(tmp_path: Path, block: str, where: str, suggestion: str) -> None:
    path = tmp_path / "task.yaml"
    path.write_text(
        textwrap.dedent(GOOD_TOP).lstrip("\n")
        + block
        + "success_criteria:\n  - {type: file_exists, path: a, description: d}\n",
        encoding="utf-8",
    )
    typo = where.rsplit(".", 1)[-1]
    p = next(p for p in problems(path) if p.message == f"unknown key {typo!r}")
    assert p.field_path == f"{where} (line {line_of(path, typo)})"
    assert p.hint == f"did you mean {suggestion!r}?"


CRITERION_TYPOS = [
    (
        "{type: system_one_judge, description: d, prompt: p, questions: "
        "{q: {type: choice, instructions: i, criteria: [a, b], expectd: a}}}",
        "success_criteria[0].questions.q.expectd",
        "expected",
    ),
    (
        "{type: cli_called, description: d, flags: {model: {equal: x}}}",
        "success_criteria[0].flags.model.equal",
        "equals",
    ),
    ("{type: agent_judge, description: d, prompt: p, agent: {modle: x}}", "success_criteria[0].agent.modle", "model"),
    (
        "{type: json_check, description: d, path: x, assertions: [{expression: a, operater: exists}]}",
        "success_criteria[0].assertions[0].operater",
        "operator",
    ),
    (
        "{type: command_executed, description: d, stop_early: {on_pas: stop}}",
        "success_criteria[0].stop_early.on_pas",
        "on_pass",
    ),
]


@pytest.mark.parametrize(("item", "where", "suggestion"), CRITERION_TYPOS, ids=[w for _, w, _ in CRITERION_TYPOS])
def test_typos_deep_inside_criteria(tmp_path: Path, item: str, where: str, suggestion: str) -> None:
    path = tmp_path / "task.yaml"
    path.write_text(textwrap.dedent(GOOD_TOP).lstrip("\n") + f"success_criteria:\n  - {item}\n", encoding="utf-8")
    typo = where.rsplit(".", 1)[-1]
    p = next(p for p in problems(path) if p.message == f"unknown key {typo!r}")
    assert p.field_path == f"{where} (line 5)"
    assert p.hint == f"did you mean {suggestion!r}?"
