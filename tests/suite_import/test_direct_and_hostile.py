"""run/plan on a plugin directory, the eval directory's location, and the created-file and output
criteria against an agent that plants links or floods the workspace."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.created_files import list_files
from coder_eval.criteria.grading import grade_one
from coder_eval.engine.files_before import list_before, recorded_before
from coder_eval.engine.task_log import TaskLog
from coder_eval.errors import UsageError
from coder_eval.suite_import.direct import expand_plugin_suite, plugin_suites
from coder_eval.suite_import.plugin_suite import import_plugin_eval

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "criteria"))
from clirun import cli
from helpers import spec

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "plugin_eval" / "greeter"


def test_plan_on_a_plugin_directory_imports_and_validates(tmp_path: Path) -> None:
    done = cli("plan", FIXTURE, "-b", "script", "-q", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 imported, 0 refused" in done.stdout and "3 of 3 task files valid" in done.stdout
    assert "experiment greeter-with-plugin-ablation: 2 variant(s)" in done.stdout
    assert not (FIXTURE / "evals" / "results").exists()  # nothing is written into the plugin


def test_a_refused_case_stops_run_and_plan_naming_it(tmp_path: Path) -> None:
    plugin = shutil.copytree(FIXTURE, tmp_path / "greeter")
    bad = plugin / "evals" / "bad"
    (bad / "graders").mkdir(parents=True)
    (bad / "prompt.md").write_text("Hi\n", encoding="utf-8")
    (bad / "graders" / "m.md").write_text("---\ntype: llm\nfocus: mock_calls\n---\nok\n", encoding="utf-8")
    for command in ("plan", "run"):
        done = cli(command, plugin, "-b", "script", "--run-dir" if command == "run" else "-q",
                   *(["r"] if command == "run" else []), cwd=tmp_path, timeout=300)  # fmt: skip
        assert done.returncode == 2, done.stdout + done.stderr
        said = " ".join((done.stdout + done.stderr).split())
        assert "1 case(s) of" in said and "m.md" in said and "mock_calls" in said
        assert "import plugin-eval" in said
    assert not list((tmp_path / "r").glob("*/*/*/task.json"))  # nothing ran


def test_a_plugin_directory_runs_on_its_own(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    with pytest.raises(UsageError, match="run on its own"):
        expand_plugin_suite([str(FIXTURE), "tasks"], None, tmp_path / "w", tmp_path)
    assert plugin_suites(["tasks"], tmp_path) == []
    kept = expand_plugin_suite(["tasks"], "exp.yaml", tmp_path / "w", tmp_path)
    assert (kept.paths, kept.experiment, kept.report) == (["tasks"], "exp.yaml", None)
    chosen = expand_plugin_suite([str(FIXTURE)], "mine.yaml", tmp_path / "w", tmp_path)
    assert chosen.experiment == "mine.yaml" and chosen.paths == [str(tmp_path / "w")]


def test_the_eval_directory_from_the_manifest_or_the_flag(tmp_path: Path) -> None:
    plugin = shutil.copytree(FIXTURE, tmp_path / "greeter")
    shutil.move(plugin / "evals", plugin / "quality")
    with pytest.raises(UsageError, match="no eval directory evals/"):
        import_plugin_eval(plugin, tmp_path / "a")
    assert len(import_plugin_eval(plugin, tmp_path / "b", eval_dir="quality").imported) == 3
    manifest = plugin / ".claude-plugin" / "plugin.json"
    manifest.write_text(json.dumps({"name": "greeter", "experimental": {"evals": "quality"}}), encoding="utf-8")
    assert len(import_plugin_eval(plugin, tmp_path / "c").imported) == 3
    with pytest.raises(UsageError, match="relative path inside the plugin"):
        import_plugin_eval(plugin, tmp_path / "d", eval_dir="../elsewhere")


def test_the_listing_is_recorded_for_regrading(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    info: dict[str, object] = {}
    before = list_before(tmp_path, info, TaskLog())
    assert before == frozenset({"a.txt"}) and info["files_before_agent"] == ["a.txt"]
    assert recorded_before(info) == before
    assert recorded_before({}) is None and recorded_before({"files_before_agent": None}) is None


def test_planted_links_are_listed_never_followed_or_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    before = frozenset(list_files(work))
    os.symlink(outside, work / "escape")
    os.symlink(outside / "secret.txt", work / "greeting.txt")
    assert list_files(work) == ["escape", "greeting.txt"]  # the directory link is not entered
    ctx = CheckContext(root=work, task_dir=work, turns=[], files_before=before)
    read, _ = grade_one(spec(type="output_matches", source="file", path="greeting.txt", pattern="s3cret"), ctx)
    assert read.score == 0.0 and "s3cret" not in read.details
    deep, _ = grade_one(spec(type="file_created", path="escape/**"), ctx)
    assert deep.score == 0.0


def test_a_flooded_workspace_is_an_error_not_a_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import coder_eval.criteria.created_files as created

    monkeypatch.setattr(created, "MAX_LISTED_FILES", 5)
    before = frozenset(list_files(tmp_path))
    for i in range(10):
        (tmp_path / f"junk{i}").write_text("x", encoding="utf-8")
    ctx = CheckContext(root=tmp_path, task_dir=tmp_path, turns=[], files_before=before)
    result, _ = grade_one(spec(type="file_created", path="*.log", exists=False), ctx)
    assert result.evaluation_status == "not_evaluated" and result.error is not None
    assert "more than 5 files" in result.error
