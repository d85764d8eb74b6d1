"""import plugin-eval: cases and graders read as Claude Code reads them, mapped to criteria, losses listed,
unmappable graders refused by name, the without/with-plugin experiment written and valid."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.config.experiments import load_experiment_file
from coder_eval.errors import TaskConfigError
from coder_eval.suite_import.plugin_case import read_case
from coder_eval.suite_import.plugin_suite import import_plugin_eval, is_plugin_suite

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from clirun import cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "plugin_eval" / "greeter"


def load(path: Path) -> dict[str, Any]:
    return dict(yaml.safe_load(path.read_text(encoding="utf-8")))


def by_name(task: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["description"].split(":")[0]: c for c in task["success_criteria"]}


def plugin(root: Path, cases: dict[str, dict[str, str]]) -> Path:
    """A plugin under `root` with one case directory per entry (file name -> text)."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}', encoding="utf-8")
    for case, files in cases.items():
        for rel, text in files.items():
            path = root / "evals" / case / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return root


PROMPT = "---\nmax_turns: 3\n---\nSay hi.\n"
JUDGED = "graders: [{name: a, type: llm, criteria: x}]\n"


def test_the_fixture_suite_maps_every_grader(tmp_path: Path) -> None:
    report = import_plugin_eval(FIXTURE, tmp_path / "out")
    assert [r.reason for r in report.refused] == []
    assert sorted(i.task_file.parent.name for i in report.imported) == ["negatives", "survey", "write-greeting"]
    greet = load(tmp_path / "out" / "write-greeting" / "task.yaml")
    assert greet["initial_prompt"].startswith("Write a file greeting.txt")
    assert greet["run_limits"] == {"max_turns": 6, "turn_timeout": 120, "task_timeout": 720}
    assert greet["agent"]["allowed_tools"] == ["Read", "Glob", "Grep", "Skill", "Write"]
    assert greet["tags"] == ["plugin-eval", "smoke"]
    plugin_path = (tmp_path / "out" / "write-greeting" / greet["agent"]["plugins"][0]["path"]).resolve()
    assert plugin_path == FIXTURE.resolve()
    crit = by_name(greet)
    assert crit["names-ada"] == {**crit["names-ada"], "type": "output_matches", "source": "reply", "flags": 2}
    assert crit["file-made"]["type"] == "file_created" and crit["file-made"]["path"] == "greeting.txt"
    house = crit["house-style"]
    assert (house["source"], house["path"], house["pattern"], house["flags"]) == (
        "file",
        "greeting.txt",
        "^Hello, Ada!$",
        8,
    )
    assert crit["skill-fired"]["type"] == "skill_triggered" and crit["skill-fired"]["weight"] == 0.0  # with-only
    assert crit["friendly"]["type"] == "llm_judge" and crit["friendly"]["weight"] == 2
    assert crit["friendly"]["include_agent_output"] is True
    assert (tmp_path / "out" / "write-greeting" / "task.script.yaml").is_file()


def test_case_yaml_graders_scaffold_and_baseline(tmp_path: Path) -> None:
    import_plugin_eval(FIXTURE, tmp_path / "out")
    survey = load(tmp_path / "out" / "survey" / "task.yaml")
    assert survey["pre_run"] == [{"command": 'bash "$TASK_DIR/scaffold/scaffold.sh"', "timeout": 120}]
    assert (tmp_path / "out" / "survey" / "scaffold" / "scaffold.sh").is_file()
    crit = by_name(survey)
    order = crit["listed-first"]
    assert order["first"] == {"tool": "Bash", "pattern": r"\bls\b"}
    assert order["then"] == {"tool": "Bash", "pattern": r"\bwc\b"}
    assert crit["ran-ls"]["type"] == "command_executed" and crit["ran-ls"]["command_pattern"] == r"\bls\b"
    assert (crit["notes-not-created"]["source"], crit["notes-not-created"]["match"]) == ("created_files", "absent")
    assert crit["no-logs"] == {**crit["no-logs"], "type": "file_created", "exists": False}
    assert (crit["names-notes-once"]["match"], crit["names-notes-once"]["count"]) == ("count", 1)
    baseline = crit["as-good-as-before"]
    assert baseline["files"] == ["$TASK_DIR/baseline/baseline.jsonl"]
    assert (tmp_path / "out" / "survey" / "baseline" / "baseline.jsonl").is_file()


def test_the_experiment_has_both_arms_and_the_largest_runs(tmp_path: Path) -> None:
    report = import_plugin_eval(FIXTURE, tmp_path / "out")
    assert report.experiment is not None
    experiment = load_experiment_file(report.experiment)
    assert [v.variant_id for v in experiment.variants] == ["without-plugin", "with-plugin"]
    assert experiment.default_repeats == 2
    assert experiment.variants[0].agent == {"plugins": []}


def test_plan_validates_the_import(tmp_path: Path) -> None:
    import_plugin_eval(FIXTURE, tmp_path / "out")
    done = cli("plan", "out", "-e", "out/experiment.yaml", "-b", "script", "-q", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 of 3 task files valid" in done.stdout


def test_the_cli_lists_losses_and_refusals_and_exits_1(tmp_path: Path) -> None:
    src = shutil.copytree(FIXTURE, tmp_path / "greeter")
    (src / "evals" / "mocked").mkdir()
    (src / "evals" / "mocked" / "prompt.md").write_text(PROMPT, encoding="utf-8")
    (src / "evals" / "mocked" / "graders").mkdir()
    (src / "evals" / "mocked" / "graders" / "calls.md").write_text("---\ntype: regex\ntarget: mock_calls\n---\nx\n")
    done = cli("import", "plugin-eval", src, "-o", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "not imported: grader 'friendly': one judge verdict" in done.stdout
    refused = next(line for line in done.stdout.splitlines() if line.startswith("refused"))
    assert "calls.md" in refused and "graders[calls].target" in refused and "mock_calls" in refused
    assert "3 imported, 1 refused" in done.stdout
    assert not (tmp_path / "out" / "mocked").exists()  # nothing is left of a refused case
    kept = (tmp_path / "out" / "import-report.txt").read_text(encoding="utf-8")
    assert "refused" in kept and "not imported: grader 'friendly'" in kept  # the report stays with the tasks


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"graders/g.md": "---\ntype: shell\n---\nx\n"}, "of kind 'shell', which this importer cannot map"),
        ({"graders/g.md": "---\ntype: regex\nflags: y\n---\nx\n"}, "the JavaScript flag 'y' has no Python counterpart"),
        ({"graders/g.md": "---\ntype: regex\n---\n(?<=a+)b\n"}, "Python cannot compile it"),
        ({"graders/g.md": "---\ntype: llm\nfocus: mock_calls\n---\nok\n"}, "mock_calls"),
        ({"graders/g.md": "---\ntype: file_exists\npath: ../x\n---\n"}, "not a path inside the workspace"),
        ({"graders/g.md": "---\ntype: baseline\nbaseline_file: none.jsonl\n---\nok\n"}, "does not exist"),
        ({"graders/g.md": "---\ntype: tool_used\ntool: Bash\nmin: 3\nmax: 1\n---\n"}, "max (1) is below min (3)"),
        ({"graders/g.md": "---\ntype: regex\nweight: 1\nextra: 1\n---\nx\n"}, "extra"),
        ({"graders/g.md": "---\nweight: 1\n---\nx\n"}, "no `type:`"),
    ],
)
def test_graders_that_cannot_be_carried_are_refused_by_name(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    root = plugin(tmp_path / "p", {"c": {"prompt.md": PROMPT, **files}})
    report = import_plugin_eval(root, tmp_path / "out")
    assert report.imported == [] and len(report.refused) == 1
    reason = report.refused[0].reason
    assert message in reason and "g.md" in reason, reason
    assert report.experiment is None


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"prompt.md": "---\nturns: 3\n---\nHi\n"}, "unknown frontmatter key 'turns'"),
        ({"prompt.md": "---\nmax_turns: 3\n---\n", "graders/a.md": "---\ntype: llm\n---\nx\n"}, "there is no prompt"),
        ({"prompt.md": "Hi\n"}, "the case has no grader"),
        (
            {"case.yaml": "name: c\nexecution: {prompt: hi}\ngraders: [{name: a, type: llm, criteria: x}]\n"},
            "schema_version",
        ),
        (
            {"case.yaml": "schema_version: '2.0'\nname: c\nexecution: {prompt: hi}\n" + JUDGED},
            "newer than the 1.x format",
        ),
        (
            {
                "prompt.md": PROMPT,
                "graders/a.md": "---\ntype: llm\nname: b\n---\nx\n",
                "graders/b.md": "---\ntype: llm\n---\ny\n",
            },
            "two graders share the name 'b'",
        ),
        (
            {
                "case.yaml": "schema_version: '1.0'\nname: c\ncontext: {history_file: h.jsonl}\n"
                "execution: {prompt: hi}\n" + JUDGED
            },
            "resumes a recorded session",
        ),
    ],
)
def test_invalid_cases_are_refused_with_the_file_and_field(tmp_path: Path, files: dict[str, str], message: str) -> None:
    root = plugin(tmp_path / "p", {"c": files})
    report = import_plugin_eval(root, tmp_path / "out")
    assert len(report.refused) == 1 and message in report.refused[0].reason, report.refused[0].reason


def test_losses_name_what_is_not_carried(tmp_path: Path) -> None:
    case = (
        "schema_version: '1.0'\nname: lossy\nruns: 1\nexpected_outcome: fine\nplugins: [../other]\n"
        "context: {add_dirs: [data]}\n"
        "execution: {prompt: hi, env: {TOKEN: x}, artifact_publish: true, surprise: 1}\n"
        "graders:\n  - {name: t, type: regex, target: trace, pattern: Bash}\n"
        "  - {name: f, type: llm, focus: files, criteria: ok}\n"
        "  - {name: m, type: tool_used, tool: mcp__db__query, input_match: '\"sql\"', min: 2}\n"
    )
    other = {"prompt.md": PROMPT, "graders/a.md": "---\ntype: llm\n---\nx\n"}
    root = plugin(tmp_path / "p", {"lossy": {"case.yaml": case}, "other": other})
    report = import_plugin_eval(root, tmp_path / "out")
    lossy = next(i for i in report.imported if i.task_file.parent.name == "lossy")
    text = "\n".join(lossy.losses)
    for expected in (
        "execution.env (TOKEN)",
        "execution.artifact_publish",
        "context.add_dirs (data)",
        "plugins (../other)",
        "expected_outcome",
        "execution.surprise: not a key of the format",
        "grader 't': the trace is our transcript",
        "grader 'f': the judge sees the last reply and the tool calls, not the list of files",
        "grader 'm': input_match is matched against the command",
        "grader 'm': fewer than 2 calls earn partial credit",
        "grader 'm': mcp__db__query is Claude Code's name",
        "runs: 1: every case runs",
    ):
        assert expected in text, (expected, text)


def test_with_only_graders_score_when_every_grader_is_one(tmp_path: Path) -> None:
    files = {"prompt.md": PROMPT, "graders/s.md": "---\ntype: tool_used\ntool: Skill\ninput_match: 'p:greet'\n---\n"}
    root = plugin(tmp_path / "p", {"c": files})
    import_plugin_eval(root, tmp_path / "out")
    (criterion,) = load(tmp_path / "out" / "c" / "task.yaml")["success_criteria"]
    assert criterion["weight"] == 1.0 and criterion["skill_name"] == "greet"


def test_never_use_a_skill_and_other_tool_used_shapes(tmp_path: Path) -> None:
    graders = {
        "graders/never.md": "---\ntype: tool_used\ntool: Skill\ninput_match: greet\nmin: 0\nmax: 0\narm: both\n---\n",
        "graders/twice.md": "---\ntype: tool_used\ntool: Skill\nmin: 2\narm: both\n---\n",
        "graders/read.md": "---\ntype: tool_used\ntool: Read\nmax: 3\n---\n",
    }
    root = plugin(tmp_path / "p", {"c": {"prompt.md": PROMPT, **graders}})
    import_plugin_eval(root, tmp_path / "out")
    crit = by_name(load(tmp_path / "out" / "c" / "task.yaml"))
    assert (crit["never"]["type"], crit["never"]["expected_skill"], crit["never"]["weight"]) == (
        "skill_triggered",
        "",
        1.0,
    )
    assert (crit["twice"]["type"], crit["twice"]["min_count"]) == ("command_executed", 2)
    assert (crit["read"]["min_count"], crit["read"]["max_count"]) == (1, 3)


def test_prompt_md_overlays_case_yaml(tmp_path: Path) -> None:
    files = {
        "case.yaml": "schema_version: '1.0'\nname: named-in-yaml\nruns: 4\nexecution:\n  prompt: from yaml\n"
        "  disallowed_tools: [WebFetch]\ngraders: [{name: first, type: regex, pattern: a}]\n",
        "prompt.md": "---\nruns: 2\ndisallowed_tools: [Agent]\n---\nfrom prompt.md\n",
        "graders/second.md": "---\ntype: regex\n---\nb\n",
        "graders/notes.md": "Plain notes without frontmatter are no grader.\n",
    }
    root = plugin(tmp_path / "p", {"dir-name": files})
    case, blame, sources = read_case(root / "evals" / "dir-name")
    assert (case.name, case.runs, case.execution.prompt) == ("named-in-yaml", 2, "from prompt.md")
    assert case.execution.disallowed_tools == ["WebFetch", "Agent"]
    assert [g.name for g in case.graders] == ["first", "second"]
    assert blame.name == "case.yaml" and [s.name for s in sources] == ["case.yaml", "second.md"]


def test_what_is_a_plugin_suite(tmp_path: Path) -> None:
    assert is_plugin_suite(FIXTURE)
    assert not is_plugin_suite(tmp_path)
    (tmp_path / "plugin.json").write_text("{}", encoding="utf-8")
    assert not is_plugin_suite(tmp_path)  # a manifest but no cases
    bad = plugin(tmp_path / "bad", {})
    (bad / ".claude-plugin" / "plugin.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(TaskConfigError, match="not readable as JSON"):
        import_plugin_eval(bad, tmp_path / "out")
