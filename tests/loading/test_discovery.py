"""Finding task files, and what `load_tasks` does with them: filters, quarantine, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.errors import UsageError
from coder_eval.loading.discovery import discover_task_files, is_task_file
from coder_eval.loading.loader import LoadReport, SelectOptions, load_tasks


def task_doc(task_id: str, **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "task_id": task_id,
        "description": f"task {task_id}",
        "initial_prompt": "go",
        "success_criteria": [{"type": "file_exists", "path": "a.txt", "description": "a exists"}],
    }
    doc.update(extra)
    return doc


def write(path: Path, content: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = content if isinstance(content, str) else yaml.safe_dump(content, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


def write_task(path: Path, task_id: str, **extra: Any) -> Path:
    return write(path, task_doc(task_id, **extra))


def rel(paths: list[Path], base: Path) -> list[str]:
    return [p.resolve().relative_to(base.resolve()).as_posix() for p in paths]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tasks/ with nested task files and YAML that is not a task."""
    write_task(tmp_path / "tasks" / "a.yaml", "a")
    write_task(tmp_path / "tasks" / "b.yml", "b")
    write_task(tmp_path / "tasks" / "group" / "c.yaml", "c")
    write_task(tmp_path / "tasks" / "group" / "deep" / "d.yaml", "d")
    write(tmp_path / "tasks" / "group" / "config.yaml", {"name": "not a task", "items": [1, 2]})
    write(tmp_path / "tasks" / "group" / "nested.yaml", "meta:\n  task_id: indented-is-not-top-level\n")
    write(tmp_path / "tasks" / "notes.txt", "task_id: not yaml\n")
    write(tmp_path / "tasks" / "datasets" / "rows.jsonl", '{"id": "r1"}\n')
    return tmp_path


# ------------------------------------------------------------------------------------ discovery


def test_is_task_file(tree: Path) -> None:
    assert is_task_file(tree / "tasks" / "a.yaml")
    assert not is_task_file(tree / "tasks" / "group" / "config.yaml")
    assert not is_task_file(tree / "tasks" / "group" / "nested.yaml")
    assert not is_task_file(tree / "tasks" / "missing.yaml")


def test_explicit_file(tree: Path) -> None:
    assert rel(discover_task_files(["tasks/a.yaml"], cwd=tree), tree) == ["tasks/a.yaml"]


def test_explicit_absolute_file(tree: Path) -> None:
    target = tree / "tasks" / "group" / "c.yaml"
    assert discover_task_files([str(target)], cwd=tree / "tasks") == [target]


def test_directory_is_searched_recursively_for_task_yaml_only(tree: Path) -> None:
    found = rel(discover_task_files(["tasks"], cwd=tree), tree)
    assert sorted(found) == ["tasks/a.yaml", "tasks/b.yml", "tasks/group/c.yaml", "tasks/group/deep/d.yaml"]


def test_glob(tree: Path) -> None:
    found = rel(discover_task_files(["tasks/*.yaml"], cwd=tree), tree)
    assert found == ["tasks/a.yaml"]


def test_recursive_glob(tree: Path) -> None:
    found = rel(discover_task_files(["tasks/**/c.yaml", "tasks/**/d.yaml"], cwd=tree), tree)
    assert found == ["tasks/group/c.yaml", "tasks/group/deep/d.yaml"]


def test_recursive_glob_matches_at_every_depth(tree: Path) -> None:
    found = rel(discover_task_files(["tasks/**/*.yml"], cwd=tree), tree)
    assert found == ["tasks/b.yml"]


def test_glob_matching_a_directory_searches_it(tree: Path) -> None:
    found = rel(discover_task_files(["tasks/gr*"], cwd=tree), tree)
    assert sorted(found) == ["tasks/group/c.yaml", "tasks/group/deep/d.yaml"]


def test_absolute_glob(tree: Path) -> None:
    found = discover_task_files([str(tree / "tasks" / "group" / "**" / "d.yaml")], cwd=tree / "tasks" / "group")
    assert rel(found, tree) == ["tasks/group/deep/d.yaml"]


def test_duplicates_are_removed_keeping_first_position(tree: Path) -> None:
    found = discover_task_files(
        ["tasks/group/c.yaml", "tasks", "tasks/*.yaml", "./tasks/a.yaml", str(tree / "tasks" / "a.yaml")],
        cwd=tree,
    )
    names = rel(found, tree)
    assert names[0] == "tasks/group/c.yaml"
    assert sorted(names) == ["tasks/a.yaml", "tasks/b.yml", "tasks/group/c.yaml", "tasks/group/deep/d.yaml"]
    assert len(names) == len(set(names))


def test_order_follows_the_arguments(tree: Path) -> None:
    found = rel(discover_task_files(["tasks/group/deep/d.yaml", "tasks/a.yaml"], cwd=tree), tree)
    assert found == ["tasks/group/deep/d.yaml", "tasks/a.yaml"]


def test_missing_path_is_a_usage_error_naming_it(tree: Path) -> None:
    with pytest.raises(UsageError, match=r"Task file not found: tasks/nope\.yaml"):
        discover_task_files(["tasks/a.yaml", "tasks/nope.yaml"], cwd=tree)


def test_empty_glob_is_a_usage_error_naming_it(tree: Path) -> None:
    with pytest.raises(UsageError) as info:
        discover_task_files(["tasks/**/*.json"], cwd=tree)
    assert "tasks/**/*.json" in str(info.value)
    assert "matched nothing" in str(info.value)


def test_no_paths_searches_tasks_of_cwd(tree: Path) -> None:
    found = rel(discover_task_files([], cwd=tree), tree)
    assert sorted(found) == ["tasks/a.yaml", "tasks/b.yml", "tasks/group/c.yaml", "tasks/group/deep/d.yaml"]


def test_no_paths_uses_the_process_cwd_by_default(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    assert len(discover_task_files([])) == 4


def test_no_paths_and_no_tasks_dir_is_a_clear_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no tasks/ directory"):
        discover_task_files([], cwd=tmp_path)


def test_usage_error_exit_code() -> None:
    assert UsageError.exit_code == 2


# ----------------------------------------------------------------------------------- load_tasks


def load(base: Path, options: SelectOptions | None = None, paths: list[str] | None = None) -> LoadReport:
    return load_tasks(paths or [], options, cwd=base)


def ids(report: LoadReport) -> list[str]:
    return sorted(t.task_id for t in report.tasks)


@pytest.fixture
def tagged(tmp_path: Path) -> Path:
    write_task(tmp_path / "tasks" / "smoke.yaml", "smoke-task", tags=["smoke", "pure-python"])
    write_task(tmp_path / "tasks" / "golden.yaml", "golden-task", tags=["golden", "connector:google-tasks"])
    write_task(tmp_path / "tasks" / "example.yaml", "example-task", tags=["example", "smoke"])
    write_task(tmp_path / "tasks" / "slack.yaml", "slack-task", tags=["connector:slack", "lifecycle:generate"])
    write_task(tmp_path / "tasks" / "untagged.yaml", "untagged-task")
    return tmp_path


def test_no_filters_loads_everything(tagged: Path) -> None:
    report = load(tagged)
    assert ids(report) == ["example-task", "golden-task", "slack-task", "smoke-task", "untagged-task"]
    assert report.errors == [] and report.skipped == []
    assert len(report.files) == 5


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (SelectOptions(tags=["smoke"]), ["example-task", "smoke-task"]),
        (SelectOptions(tags=["golden", "pure-python"]), ["golden-task", "smoke-task"]),
        (SelectOptions(tags=["connector:*"]), ["golden-task", "slack-task"]),
        (SelectOptions(tags=["connector:slack"]), ["slack-task"]),
        (SelectOptions(tags=["nothing-has-this"]), []),
        (SelectOptions(exclude_tags=["example"]), ["golden-task", "slack-task", "smoke-task", "untagged-task"]),
        (SelectOptions(exclude_tags=["connector:*"]), ["example-task", "smoke-task", "untagged-task"]),
        (SelectOptions(tags=["smoke"], exclude_tags=["example"]), ["smoke-task"]),
        (SelectOptions(tags=["connector:*"], exclude_tags=["lifecycle:*"]), ["golden-task"]),
    ],
    ids=[
        "tag",
        "tags-or",
        "namespace-pattern",
        "namespaced-exact",
        "no-match",
        "exclude",
        "exclude-namespace-pattern",
        "exclude-wins",
        "namespace-include-and-exclude",
    ],
)
def test_tag_filters(tagged: Path, options: SelectOptions, expected: list[str]) -> None:
    report = load(tagged, options)
    assert ids(report) == expected
    assert report.errors == []


def test_skip_is_recorded_not_loaded(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks" / "live.yaml", "live")
    parked = write_task(tmp_path / "tasks" / "parked.yaml", "parked", skip=True)
    report = load(tmp_path)
    assert ids(report) == ["live"]
    (skipped,) = report.skipped
    assert Path(skipped.path).resolve() == parked.resolve()
    assert "skip" in skipped.reason and "--include-skipped" in skipped.reason


def test_include_skipped_loads_quarantined_tasks(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks" / "live.yaml", "live")
    write_task(tmp_path / "tasks" / "parked.yaml", "parked", skip=True)
    report = load(tmp_path, SelectOptions(include_skipped=True))
    assert ids(report) == ["live", "parked"]
    assert report.skipped == []


def test_skipped_dataset_task_is_not_expanded(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks" / "parked.yaml", "parked", skip=True, dataset={"paths": ["does-not-exist.jsonl"]})
    report = load(tmp_path)
    assert report.tasks == [] and report.errors == []
    assert len(report.skipped) == 1


def test_invalid_files_are_collected_without_stopping_the_rest(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks" / "a.yaml", "a")
    write(tmp_path / "tasks" / "b.yaml", "task_id: b\ndescription: [unclosed\n")
    write_task(tmp_path / "tasks" / "c.yaml", "c", tags=["Bad_Tag"])
    write(tmp_path / "tasks" / "d.yaml", "task_id: d\n")
    write_task(tmp_path / "tasks" / "e.yaml", "e")
    report = load(tmp_path)
    assert ids(report) == ["a", "e"]
    assert len(report.files) == 5
    failed = sorted(Path(str(err.file)).name for err in report.errors)
    assert failed == ["b.yaml", "c.yaml", "d.yaml"]
    by_name = {Path(str(err.file)).name: str(err) for err in report.errors}
    assert "not valid YAML" in by_name["b.yaml"]
    assert "kebab-case" in by_name["c.yaml"]
    assert "required field is missing" in by_name["d.yaml"]


def test_explicit_non_task_yaml_is_reported_not_ignored(tmp_path: Path) -> None:
    write(tmp_path / "config.yaml", {"name": "x"})
    report = load(tmp_path, paths=["config.yaml"])
    assert report.tasks == []
    (err,) = report.errors
    assert "task_id" in str(err)


def test_duplicate_task_id_across_files_is_an_error(tmp_path: Path) -> None:
    first = write_task(tmp_path / "tasks" / "one.yaml", "same")
    write_task(tmp_path / "tasks" / "two.yaml", "same")
    write_task(tmp_path / "tasks" / "three.yaml", "other")
    report = load(tmp_path, paths=["tasks/one.yaml", "tasks/two.yaml", "tasks/three.yaml"])
    assert ids(report) == ["other", "same"]
    (err,) = report.errors
    assert Path(str(err.file)).name == "two.yaml"
    message = str(err)
    assert "task_id 'same' is also used by" in message
    assert str(first) in message or first.name in message
    assert err.problems[0].field_path == "task_id"


def test_duplicate_task_id_is_an_error_even_when_filtered_out(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks" / "one.yaml", "same", tags=["smoke"])
    write_task(tmp_path / "tasks" / "two.yaml", "same", tags=["golden"])
    report = load(tmp_path, SelectOptions(tags=["golden"]), paths=["tasks/one.yaml", "tasks/two.yaml"])
    assert report.tasks == []
    assert len(report.errors) == 1


def test_usage_errors_propagate_from_load_tasks(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"Task file not found: missing\.yaml"):
        load(tmp_path, paths=["missing.yaml"])


def test_loaded_task_knows_its_source(tmp_path: Path) -> None:
    path = write_task(tmp_path / "tasks" / "sub" / "a.yaml", "a")
    (task,) = load(tmp_path).tasks
    assert task.source_file.resolve() == path.resolve()
    assert task.task_dir == path.parent.resolve()


def test_system_prompt_file_is_read_into_system_prompt(tmp_path: Path) -> None:
    from coder_eval.loading.loader import expand_dataset, load_task_file

    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "persona.md").write_text("Be terse.")
    task_file = tmp_path / "t.yaml"
    task_file.write_text(
        "task_id: t\ndescription: d\ninitial_prompt: p\n"
        "agent: {type: claude-code, system_prompt_file: prompts/persona.md}\n"
        "success_criteria: [{type: file_exists, path: a, description: a}]\n"
    )
    definition, raw = load_task_file(task_file)
    (loaded,) = expand_dataset(definition, raw, task_file)
    assert loaded.definition.agent is not None
    assert loaded.definition.agent.system_prompt == "Be terse."
    assert loaded.definition.agent.system_prompt_file is None
