"""Task files as the reference system reads them: a lenient top level, legacy forms, its 0.12 fields."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from coder_eval.errors import TaskConfigError
from coder_eval.loading.loader import SelectOptions, expand_dataset, load_tasks, read_task_file
from coder_eval.models.criteria import CommandExecutedCriterion

HEAD = """\
task_id: demo
description: a demo task
initial_prompt: write out.txt
"""
CRITERIA = """\
success_criteria:
  - {type: file_exists, path: out.txt, description: out.txt exists}
"""


def write(tmp_path: Path, body: str, name: str = "task.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_unknown_top_level_key_warns_with_did_you_mean_and_is_dropped(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + "tgas: [a]\n" + CRITERIA)
    loaded = read_task_file(path)
    (warning,) = loaded.warnings
    assert warning.field == "tgas" and warning.line == 4
    assert warning.render() == "tgas (line 4): unknown top-level key, ignored (did you mean 'tags'?)"
    assert "tgas" not in loaded.raw and loaded.definition.tags == []


@pytest.mark.parametrize(
    ("key", "replacement"),
    [("max_iterations", "run_limits.max_turns"), ("llm_reviewer", "llm_judge")],
)
def test_stale_keys_warn_that_they_are_ignored_and_name_migrate(tmp_path: Path, key: str, replacement: str) -> None:
    path = write(tmp_path, HEAD + f"{key}: 5\n" + CRITERIA)
    (warning,) = read_task_file(path).warnings
    text = warning.render()
    assert text.startswith(f"{key} (line 4): is no longer used and is ignored")
    assert replacement in text and "coder-eval migrate" in text


def test_expander_owned_keys_at_the_top_level_only_warn(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + "suite_id: s\nrow_id: r\n" + CRITERIA)
    assert [w.field for w in read_task_file(path).warnings] == ["suite_id", "row_id"]


def test_nested_models_stay_strict(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + "sandbox:\n  drivr: tempdir\n" + CRITERIA)
    with pytest.raises(TaskConfigError) as info:
        read_task_file(path)
    (problem,) = info.value.problems
    assert problem.message == "unknown key 'drivr'" and problem.hint == "did you mean 'driver'?"


def test_an_invalid_file_lists_the_dropped_keys_among_its_problems(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + "succes_criteria: []\n")
    with pytest.raises(TaskConfigError) as info:
        read_task_file(path)
    messages = {p.message for p in info.value.problems}
    assert {"unknown key 'succes_criteria'", "required field is missing"} <= messages


def test_load_tasks_keeps_the_warnings_of_every_loaded_file(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + "owner: me\n" + CRITERIA)
    report = load_tasks([str(path)])
    assert not report.errors
    assert [w.field for w in report.warnings[path]] == ["owner"]
    assert [w.field for w in report.tasks[0].warnings] == ["owner"]


def test_dataset_rows_carry_the_file_warnings(tmp_path: Path) -> None:
    body = HEAD + "owner: me\ndataset:\n  rows: [{id: a}, {id: b}]\n" + CRITERIA
    report = load_tasks([str(write(tmp_path, body))], SelectOptions())
    assert [len(t.warnings) for t in report.tasks] == [1, 1]


@pytest.mark.parametrize("min_count", [None, 2])
def test_command_not_executed_means_never_run_whatever_min_count_says(tmp_path: Path, min_count: int | None) -> None:
    lines = [
        "success_criteria:",
        "  - type: command_not_executed",
        "    description: never deletes",
        '    command_pattern: "rm -rf"',
        *([f"    min_count: {min_count}"] if min_count is not None else []),
    ]
    body = HEAD + "\n".join(lines) + "\n"
    loaded = read_task_file(write(tmp_path, body))
    (criterion,) = loaded.definition.success_criteria
    assert isinstance(criterion, CommandExecutedCriterion)
    assert (criterion.min_count, criterion.max_count) == (0, 0)
    (warning,) = loaded.warnings
    assert warning.field == "success_criteria[0].type" and warning.line == 5
    assert "read as command_executed with min_count: 0, max_count: 0" in warning.message


def test_a_wrong_key_of_command_not_executed_is_told_the_keys_of_what_it_means(tmp_path: Path) -> None:
    body = HEAD + "success_criteria:\n  - {type: command_not_executed, pattern: rm, description: never}\n"
    with pytest.raises(TaskConfigError) as caught:
        read_task_file(write(tmp_path, body))
    (problem,) = caught.value.problems
    assert problem.message == "unknown key 'pattern'"
    assert problem.hint == "did you mean 'command_pattern' or 'exclude_pattern'?"
    typo = HEAD + "success_criteria:\n  - {type: command_not_executed, comand_pattern: rm, description: never}\n"
    with pytest.raises(TaskConfigError) as caught:
        read_task_file(write(tmp_path, typo))
    assert caught.value.problems[0].hint == "did you mean 'command_pattern'?"


def test_node_env_packages_as_the_reference_spells_it(tmp_path: Path) -> None:
    body = HEAD + "sandbox:\n  node: {env_packages: [left-pad]}\n  python: {env_packages: [pytest]}\n" + CRITERIA
    sandbox = read_task_file(write(tmp_path, body)).definition.sandbox
    assert sandbox.node is not None and sandbox.node.specifiers == ["left-pad"]
    assert sandbox.python is not None and sandbox.python.env_packages == ["pytest"]


def test_node_packages_under_both_names_is_an_error(tmp_path: Path) -> None:
    body = HEAD + "sandbox:\n  node: {env_packages: [a], packages: [b]}\n" + CRITERIA
    with pytest.raises(TaskConfigError, match="same list under two names"):
        read_task_file(write(tmp_path, body))


def test_initial_prompt_file_becomes_the_prompt(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "p.md").write_text("Write out.txt, please.\n", encoding="utf-8")
    body = "task_id: demo\ndescription: d\ninitial_prompt_file: prompts/p.md\n" + CRITERIA
    loaded = read_task_file(write(tmp_path, body))
    assert loaded.definition.initial_prompt == "Write out.txt, please.\n"
    assert loaded.definition.initial_prompt_file is None
    assert loaded.raw["initial_prompt"] == "Write out.txt, please.\n" and "initial_prompt_file" not in loaded.raw


def test_initial_prompt_file_rows_substitute_in_the_file_text(tmp_path: Path) -> None:
    (tmp_path / "p.md").write_text("Label ${row.text}", encoding="utf-8")
    body = (
        "task_id: demo\ndescription: d\ninitial_prompt_file: p.md\ndataset:\n  rows: [{id: a, text: hi}]\n" + CRITERIA
    )
    path = write(tmp_path, body)
    loaded = read_task_file(path)
    (row,) = expand_dataset(loaded.definition, loaded.raw, path)
    assert row.definition.initial_prompt == "Label hi"


def test_initial_prompt_file_is_exclusive_with_initial_prompt(tmp_path: Path) -> None:
    (tmp_path / "p.md").write_text("x", encoding="utf-8")
    with pytest.raises(TaskConfigError, match="mutually exclusive"):
        read_task_file(write(tmp_path, HEAD + "initial_prompt_file: p.md\n" + CRITERIA))


def test_missing_initial_prompt_file_names_the_field(tmp_path: Path) -> None:
    with pytest.raises(TaskConfigError) as info:
        read_task_file(write(tmp_path, "task_id: demo\ndescription: d\ninitial_prompt_file: nope.md\n" + CRITERIA))
    (problem,) = info.value.problems
    assert problem.field_path == "initial_prompt_file" and "nope.md" in problem.message


def test_expected_commands_at_the_task_level(tmp_path: Path) -> None:
    assert read_task_file(write(tmp_path, HEAD + "expected_commands: 4\n" + CRITERIA)).definition.expected_commands == 4
    with pytest.raises(TaskConfigError, match="greater than or equal to 1"):
        read_task_file(write(tmp_path, HEAD + "expected_commands: 0\n" + CRITERIA))


def test_disabled_simulation_needs_no_persona_but_an_enabled_one_does(tmp_path: Path) -> None:
    disabled = read_task_file(write(tmp_path, HEAD + "simulation: {enabled: false}\n" + CRITERIA))
    assert disabled.definition.simulation is not None and not disabled.definition.simulation.enabled
    with pytest.raises(TaskConfigError, match="an enabled simulation needs persona and goal"):
        read_task_file(write(tmp_path, HEAD + "simulation: {enabled: true}\n" + CRITERIA))


def test_reference_file_error_names_the_migrate_command(tmp_path: Path) -> None:
    body = HEAD + "reference: {file: solution.py}\n" + CRITERIA
    with pytest.raises(TaskConfigError) as info:
        read_task_file(write(tmp_path, body))
    assert "coder-eval migrate" in info.value.render()
