"""Property: `plan` and `run` agree on which task files are valid.

Random task files (mutations of valid baselines, and YAML-ish text) go to both `plan` and
`run`, each with `-D agent.type=none` (so nothing needs a model and both see the same input).
Whatever `plan` rejects (exit 1), `run` must refuse before starting anything
(exit 2, no run directory); whatever `plan` accepts, `run` must run (exit 0 or 1, run.json).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given, settings
from test_malformed_input import (
    SETTINGS,
    assert_handled,
    defuse_commands,
    dump,
    examples,
    invoke,
    mutated_tasks,
    workspace,
    write_task,
    yamlish_texts,
)
from typer.testing import Result

NONE_AGENT = ["-D", "agent.type=none"]


def _plan(ws: Any) -> Result:
    result = invoke(["plan", "--quiet", str(ws.task_file), *NONE_AGENT])
    assert_handled(result, ws.task_file, config_exit=1)
    return result


def _run(ws: Any) -> Result:
    args = ["run", str(ws.task_file), *NONE_AGENT, "--run-dir", str(ws.run_dir), "--preservation-mode", "NONE"]
    result = invoke(args)
    assert_handled(result, ws.task_file, config_exit=2)
    return result


_SAFE_DIRS = {"path": "tpl", "directory": "reference", "mount_point": "mnt"}


def defuse_paths(node: Any) -> None:
    """`run` copies templates and references: keep a mutated path from copying `/` or `~`."""
    if isinstance(node, dict):
        for key, value in node.items():
            risky = isinstance(value, str) and (value.strip().startswith(("/", "~", "$", "\\")) or ".." in value)
            if key in _SAFE_DIRS and risky:
                node[key] = _SAFE_DIRS[key]
            else:
                defuse_paths(value)
    elif isinstance(node, list):
        for item in node:
            defuse_paths(item)


def _agree(ws: Any, label: str) -> None:
    plan = _plan(ws)
    run = _run(ws)
    event(f"{label}: plan {plan.exit_code}, run {run.exit_code}")
    if plan.exit_code == 0:
        assert run.exit_code in (0, 1), f"plan accepted it, run refused:\n{run.output}"
        assert (ws.run_dir / "run.json").is_file(), run.output
    else:
        assert run.exit_code == 2, f"plan rejected it, run did not:\n{plan.output}\n---\n{run.output}"
        assert not (ws.run_dir / "run.json").exists(), "run must not start anything for an invalid file"


@settings(SETTINGS, max_examples=examples(80))
@given(case=mutated_tasks())
def test_plan_and_run_agree_on_mutated_tasks(case: tuple[str, dict[str, Any], list[str]]) -> None:
    name, doc, _ = case
    defuse_commands(doc)  # run really executes commands: only harmless ones
    defuse_paths(doc)
    if isinstance(doc, dict):
        doc["agent"] = {"type": "none"}  # agent fields of another kind would make most cases invalid
    with workspace(populated=True) as ws:
        write_task(ws, dump(doc))
        _agree(ws, name)


@settings(SETTINGS, max_examples=examples(40))
@given(content=yamlish_texts())
def test_plan_and_run_agree_on_yamlish_text(content: str | bytes) -> None:
    with workspace() as ws:
        write_task(ws, content)
        _agree(ws, "text")


HEAD = "task_id: t\ndescription: d\nagent: {type: none}\n"
FILE_EXISTS = "success_criteria:\n  - {type: file_exists, path: app.py, description: d}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            HEAD + "success_criteria:\n  - {type: file_matches_regex, path: app.py, pattern: x, flags: 999999,"
            " description: d}\n",
            "not `re` flags",
            id="impossible-regex-flags",
        ),
        pytest.param(
            HEAD + "success_criteria:\n  - {type: file_exists, path: '../**/task.yaml', description: d}\n",
            "..",
            id="criterion-path-escapes",
        ),
        pytest.param(
            HEAD + "sandbox:\n  template_sources: [{type: template_dir, path: missing}]\n" + FILE_EXISTS,
            "does not exist",
            id="missing-template-dir",
        ),
        pytest.param(HEAD + "description: again\n" + FILE_EXISTS, "appears twice", id="duplicate-key"),
        pytest.param(
            "task_id: " + "x" * 5000 + "\ndescription: d\nagent: {type: none}\n" + FILE_EXISTS,
            "at most 100",
            id="long-task-id",
        ),
        pytest.param(
            HEAD + "dataset:\n  rows: [{id: " + "r" * 300 + "}]\n" + FILE_EXISTS, "at most 100", id="long-row-id"
        ),
    ],
)
def test_issue_cases_are_rejected_by_both_with_the_same_message(text: str, message: str) -> None:
    with workspace() as ws:
        write_task(ws, text)
        plan, run = _plan(ws), _run(ws)
        assert plan.exit_code == 1 and run.exit_code == 2, plan.output + run.output
        assert message in plan.output and message in " ".join(run.output.split()), plan.output + run.output
        assert not ws.run_dir.exists()


def test_a_selection_that_matches_nothing_says_why() -> None:
    with workspace() as ws:
        write_task(ws, HEAD + "tags: [fast]\n" + FILE_EXISTS)
        result = invoke(["run", str(ws.task_file), "--tags", "slow", "--run-dir", str(ws.run_dir)])
        assert result.exit_code == 2
        assert "nothing to run" in result.output and "--tags slow" in result.output
        write_task(ws, HEAD + "skip: true\n" + FILE_EXISTS)
        result = invoke(["run", str(ws.task_file), "--run-dir", str(ws.run_dir)])
        assert result.exit_code == 2 and "--include-skipped" in " ".join(result.output.split())
