"""Property: `plan` and `run` agree on which task files are valid.

Random task files (mutations of valid baselines, and YAML-ish text) go to both `plan` and
`run`, each with `-D agent.type=none` (so nothing needs a model and both see the same input).
Whatever `plan` rejects (exit 1), `run` must refuse before starting anything
(exit 2, no run directory); whatever `plan` accepts, `run` must run (exit 0 or 1, run.json).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
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


# --- The matrix: what only resolution and the chosen flags reveal ------------------------------
#
# Each case is one invalid input that a task file alone does not show (a flag, an experiment arm,
# a script file, the environment). The matrix crosses every case with two task shapes (a plain
# task and a dataset task) and every compatible pair of cases with each other: for each cell,
# `plan` must exit 1 and `run` exit 2 before creating anything, and both must print every
# expected message.


@dataclass(frozen=True)
class Case:
    name: str
    message: str
    flags: tuple[str, ...] = ("-b", "script")
    task: tuple[tuple[str, Any], ...] = ()
    """Top-level keys merged into the task document."""
    script: str | None = "final_reply: done\n"
    arm: tuple[tuple[str, Any], ...] = ()
    """Keys of a second experiment arm (the case adds `-e` when set)."""

    @property
    def backend(self) -> str:
        return self.flags[self.flags.index("-b") + 1] if "-b" in self.flags else "direct"


UNSET = "CE_MATRIX_NOT_SET"
SIMULATION = {"enabled": True, "persona": "a user", "goal": "get app.py"}
STOP = {"on_pass": "stop"}
JUDGE = {"type": "llm_judge", "prompt": "Is app.py there?", "description": "judged"}
CASES = (
    Case("script-typo", "unknown step kind 'wrte_file'", script="steps:\n  - wrte_file: {path: a, content: b}\n"),
    Case("script-missing", "no script for task", script=None),
    Case("no-key", "no credential for anthropic: set ANTHROPIC_API_KEY", flags=("-b", "direct")),
    Case("bedrock-no-aws", "bedrock needs its region: set AWS_REGION", flags=("-b", "bedrock")),
    Case(
        "judge-no-key",
        "llm_judge cannot reach its model under -b direct",
        flags=("-b", "direct"),
        task=(("agent", {"type": "none"}), ("success_criteria", [JUDGE])),
    ),
    Case(
        "judge-bedrock-route-no-aws",
        "llm_judge cannot reach its model under -b record: Bedrock needs $AWS_BEARER_TOKEN_BEDROCK",
        flags=("-b", "record"),
        task=(
            ("agent", {"type": "none"}),
            ("checker_context", {"api_route": {"route": "bedrock"}}),
            ("success_criteria", [JUDGE]),
        ),
    ),
    Case(
        "simulator-no-key",
        "the simulated user cannot reach its model under -b record",
        flags=("-b", "record"),
        task=(("simulation", SIMULATION),),
    ),
    Case(
        "plugin-unset-var", f"uses ${UNSET}, which is not set", arm=(("agent", {"plugins": [{"path": "$" + UNSET}]}),)
    ),
    Case("plugin-missing-dir", "is not a directory", arm=(("agent", {"plugins": [{"path": "no-such-plugin"}]}),)),
    Case(
        "template-outside",
        "outside the task's directory tree",
        arm=(("template_sources", [{"type": "template_dir", "path": "/usr/share"}]),),
    ),
    Case("loopback-under-docker", "cuts off here", flags=("-b", "script", "-T", "antigravity", "--driver", "docker")),
    Case(
        "simulation-without-agent",
        "simulation needs an agent",
        flags=("-b", "script", "-T", "none"),
        task=(("simulation", SIMULATION),),
    ),
    Case(
        "stop-early-in-a-dialog",
        "stop_early blocks only work in single-shot runs",
        task=(
            ("simulation", SIMULATION),
            (
                "success_criteria",
                [{"type": "command_executed", "command_pattern": "x", "description": "d", "stop_early": STOP}],
            ),
        ),
    ),
)
PAIRS = [
    (a, b)
    for a, b in itertools.combinations(CASES, 2)
    if a.backend == b.backend == "script"
    and "-T" not in a.flags + b.flags
    and not (a.arm and b.arm)
    and not (a.script != b.script and "final_reply: done\n" not in (a.script, b.script))
    and not {a.name, b.name} & {"script-missing"}
]


def _document(cases: tuple[Case, ...], *, dataset: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "task_id": "matrix",
        "description": "d",
        "initial_prompt": "Create app.py.",
        "agent": {"type": "claude-code", "allowed_tools": ["Read", "Write", "Bash"]},
        "success_criteria": [{"type": "file_exists", "path": "app.py", "description": "d"}],
    }
    if dataset:
        doc["dataset"] = {"rows": [{"id": "r1"}, {"id": "r2"}]}
    for case in cases:
        doc.update(dict(case.task))
    return doc


def _write_cell(ws: Any, cases: tuple[Case, ...], *, dataset: bool) -> list[str]:
    write_task(ws, dump(_document(cases, dataset=dataset)))
    scripts = [c.script for c in cases]
    script = next((s for s in scripts if s != "final_reply: done\n"), "final_reply: done\n")
    if None not in scripts:
        (ws.root / "task.script.yaml").write_text(script or "", encoding="utf-8")
    options: dict[str, str] = {}  # option -> value: the cases of a pair share their -b
    for case in cases:
        options.update(zip(case.flags[::2], case.flags[1::2], strict=True))
    arms = [dict(c.arm) for c in cases if c.arm]
    if arms:
        variants = [{"variant_id": "plain"}, {"variant_id": "arm", **arms[0]}]
        (ws.root / "exp.yaml").write_text(dump({"experiment_id": "matrix", "variants": variants}), encoding="utf-8")
        options["-e"] = str(ws.root / "exp.yaml")
    return [part for pair in options.items() for part in pair]


def _assert_cell(ws: Any, cases: tuple[Case, ...], flags: list[str]) -> None:
    plan = invoke(["plan", str(ws.task_file), *flags])
    run = invoke(["run", str(ws.task_file), *flags, "--run-dir", str(ws.run_dir)])
    names = "+".join(c.name for c in cases)
    assert plan.exit_code == 1, f"{names}: plan exit {plan.exit_code}\n{plan.output}"
    assert run.exit_code == 2, f"{names}: run exit {run.exit_code}\n{run.output}"
    assert not ws.run_dir.exists(), f"{names}: run created {ws.run_dir} before refusing"
    assert "0 of 1 task files valid" in plan.output, plan.output
    flat_run = " ".join(run.output.split())
    for case in cases:
        assert case.message in plan.output, f"{names}: plan does not say {case.message!r}\n{plan.output}"
        assert case.message in flat_run, f"{names}: run does not say {case.message!r}\n{run.output}"


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "AWS_BEARER_TOKEN_BEDROCK",
                 "AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "API_BACKEND",
                 "CODER_EVAL_UPSTREAM_ANTHROPIC", UNSET):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("dataset", [False, True], ids=["task", "dataset"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matrix_each_invalid_input_is_refused_by_both_with_its_message(
    case: Case, dataset: bool, no_credentials: None
) -> None:
    with workspace() as ws:
        flags = _write_cell(ws, (case,), dataset=dataset)
        _assert_cell(ws, (case,), flags)


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=lambda c: c.name)
def test_matrix_two_invalid_inputs_are_both_reported_by_both(first: Case, second: Case, no_credentials: None) -> None:
    with workspace() as ws:
        flags = _write_cell(ws, (first, second), dataset=False)
        _assert_cell(ws, (first, second), flags)


def test_matrix_the_valid_cell_plans_and_runs(no_credentials: None) -> None:
    """The control: the same task, script and experiment with nothing wrong, plans 0 and runs."""
    with workspace() as ws:
        write_task(ws, dump({**_document((), dataset=False), "agent": {"type": "none"}}))
        assert invoke(["plan", str(ws.task_file), "-b", "script"]).exit_code == 0
        result = invoke(["run", str(ws.task_file), "-b", "script", "--run-dir", str(ws.run_dir)])
        assert result.exit_code == 1 and (ws.run_dir / "run.json").is_file(), result.output  # app.py is missing
