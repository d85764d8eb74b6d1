"""import skill-evals: evals.json as tasks, expectations as deterministic checks or judges, the two arms."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.config.experiments import load_experiment_file
from coder_eval.suite_import.expectations import deterministic, named_file
from coder_eval.suite_import.skill_evals import import_skill_evals

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from clirun import cli

PLUGIN = Path(__file__).resolve().parents[1] / "fixtures" / "skill_evals" / "plugin"
SKILL = PLUGIN / "skills" / "tidy-notes"


def load(path: Path) -> dict[str, Any]:
    return dict(yaml.safe_load(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("sentence", "body"),
    [
        ("`report.md` exists", {"type": "file_exists", "path": "report.md"}),
        ("The file `out/a.csv` was created.", {"type": "file_exists", "path": "out/a.csv"}),
        ("Creates 'notes.md'", {"type": "file_exists", "path": "notes.md"}),
        ("`r.md` contains `Total`", {"type": "file_contains", "path": "r.md", "includes": ["Total"]}),
        ('`r.md` does not contain "TODO"', {"type": "file_contains", "path": "r.md", "excludes": ["TODO"]}),
        ("The reply mentions `42`", {"type": "output_matches", "source": "reply", "pattern": "42"}),
        (
            "the final response does not mention 'sorry'",
            {"type": "output_matches", "source": "reply", "pattern": "sorry", "match": "absent"},
        ),
        ("Runs `make test`", {"type": "command_executed", "tool_name": "Bash", "command_pattern": r"make\ test"}),
        ("The command `ls` was run", {"type": "command_executed", "tool_name": "Bash", "command_pattern": "ls"}),
        ("The `tidy` skill is used", {"type": "skill_triggered", "skill_name": "tidy", "expected_skill": "tidy"}),
        ("Claude never uses the tidy skill", {"type": "skill_triggered", "skill_name": "tidy", "expected_skill": ""}),
    ],
)
def test_recognised_expectations(sentence: str, body: dict[str, Any]) -> None:
    assert deterministic(sentence, "tidy") == body


@pytest.mark.parametrize(
    "sentence",
    [
        "The output is well organised",
        "report.md exists",  # unquoted: left to the judge
        "The `pdf` skill is used",  # another skill than the one under test
        "`report.md` does not exist",
        "The reply mentions the total and explains it",
    ],
)
def test_everything_else_goes_to_a_judge(sentence: str) -> None:
    assert deterministic(sentence, "tidy") is None


def test_named_file() -> None:
    assert named_file("The table in `out/report.md` is sorted") == "out/report.md"
    assert named_file("`apples` is first") is None
    assert named_file("`../secret.txt` is unchanged") is None


def test_the_fixture_imports_with_inputs_criteria_and_arms(tmp_path: Path) -> None:
    report = import_skill_evals(SKILL, tmp_path / "out")
    assert [r.reason for r in report.refused] == []
    task = load(tmp_path / "out" / "tidy-basic" / "task.yaml")
    assert task["initial_prompt"].endswith("Input files: evals/files/notes.txt")
    assert (tmp_path / "out" / "tidy-basic" / "inputs" / "evals" / "files" / "notes.txt").is_file()
    assert task["sandbox"]["template_sources"] == [{"type": "template_dir", "path": "inputs"}]
    kinds = [c["type"] for c in task["success_criteria"]]
    assert kinds == [
        "file_exists",
        "file_contains",
        "output_matches",
        "command_executed",
        "skill_triggered",
        "llm_judge",
    ]
    assert all(c["weight"] == 1.0 for c in task["success_criteria"])  # the score is the pass rate
    judge = task["success_criteria"][-1]
    assert "tidy.txt holds apples" in judge["prompt"] and judge["include_tool_calls"] is True
    lone = load(tmp_path / "out" / "eval-2" / "task.yaml")
    assert [c["description"] for c in lone["success_criteria"]] == ["expected output (judged)"]
    assert (tmp_path / "out" / "tidy-basic" / "task.script.yaml").is_file()
    plugin = (tmp_path / "out" / "tidy-basic" / task["agent"]["plugins"][0]["path"]).resolve()
    assert plugin == PLUGIN.resolve()  # the skill sits in a plugin's skills/: loaded where it is
    assert report.experiment is not None
    experiment = load_experiment_file(report.experiment)
    assert [v.variant_id for v in experiment.variants] == ["without-skill", "with-skill"]
    assert experiment.default_repeats == 3


def test_judge_all_and_a_skill_outside_a_plugin_is_copied(tmp_path: Path) -> None:
    loose = shutil.copytree(SKILL, tmp_path / "tidy-notes")
    report = import_skill_evals(loose, tmp_path / "out", judge_all=True)
    task = load(tmp_path / "out" / "tidy-basic" / "task.yaml")
    assert {c["type"] for c in task["success_criteria"]} == {"llm_judge"}
    assert (tmp_path / "out" / "plugin" / "skills" / "tidy-notes" / "SKILL.md").is_file()
    assert not (tmp_path / "out" / "plugin" / "skills" / "tidy-notes" / "evals").exists()
    assert any("a snapshot" in note for note in report.notes)


def test_trigger_entries_and_refusals(tmp_path: Path) -> None:
    skill = tmp_path / "s"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n", encoding="utf-8")
    evals = [
        {"query": "please tidy", "should_trigger": True},
        {"query": "weather?", "should_trigger": False},
        {"id": 3, "prompt": "x", "files": ["../outside.txt"], "expectations": ["ok"]},
        {"id": 4, "expectations": ["ok"]},
        {"id": 5, "prompt": "x"},
        {"id": 6, "prompt": "x", "expectations": [{"passed": None}]},
    ]
    (skill / "evals" / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    done = cli("import", "skill-evals", skill, "-o", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    first = load(tmp_path / "out" / "eval-0" / "task.yaml")["success_criteria"][0]
    assert (first["type"], first["expected_skill"]) == ("skill_triggered", "s")
    assert load(tmp_path / "out" / "eval-1" / "task.yaml")["success_criteria"][0]["expected_skill"] == ""
    for needle in ("'../outside.txt' is not a file under the skill", "no prompt", "nothing to grade", "a sentence"):
        assert needle in done.stdout, (needle, done.stdout)
    assert "2 imported, 4 refused" in done.stdout
    assert not (tmp_path / "out" / "eval-3").exists()


def test_no_evals_file_is_a_usage_error(tmp_path: Path) -> None:
    done = cli("import", "skill-evals", tmp_path, cwd=tmp_path)
    assert done.returncode == 2 and "has no evals/evals.json" in done.stdout + done.stderr
