"""Finding a run's record files: the order Path sorting gives, and nothing from preserved workspaces."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from coder_eval.common.collector import collector_paused
from coder_eval.records.layout import SUITE_JSON, TASK_JSON, find_run_files, find_task_results
from coder_eval.records.store import read_task_results


def _touch(root: Path, *relative: str) -> None:
    for rel in relative:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}", encoding="utf-8")


def _rglob_reference(run_dir: Path, name: str) -> list[Path]:
    """What the walk replaces: every match, minus those under artifacts/ or .sandboxes/."""
    return sorted(p for p in run_dir.rglob(name) if not {"artifacts", ".sandboxes"} & set(p.relative_to(run_dir).parts))


def test_walk_matches_a_filtered_rglob_in_the_same_order(tmp_path: Path) -> None:
    # `a/x` sorts before `a-b/x` as paths but after it as strings ('-' < '/').
    _touch(
        tmp_path,
        "a-b/x/00/task.json",
        "a/x/00/task.json",
        "a/task.json",
        "v/suite/suite.json",
        "v/suite/r1/00/task.json",
        "v/suite/r10/00/task.json",
        "v/suite/r2/00/task.json",
    )
    for name in (TASK_JSON, SUITE_JSON):
        assert find_run_files(tmp_path, name) == _rglob_reference(tmp_path, name)
    assert [p.relative_to(tmp_path).as_posix() for p in find_task_results(tmp_path)] == [
        "a/task.json",
        "a/x/00/task.json",
        "a-b/x/00/task.json",
        "v/suite/r1/00/task.json",
        "v/suite/r10/00/task.json",
        "v/suite/r2/00/task.json",
    ]
    both = find_run_files(tmp_path, TASK_JSON, SUITE_JSON)
    assert [p for p in both if p.name == TASK_JSON] == find_task_results(tmp_path)
    assert [p for p in both if p.name == SUITE_JSON] == [tmp_path / "v/suite/suite.json"]


def test_preserved_workspaces_and_directory_links_are_not_entered(tmp_path: Path) -> None:
    _touch(
        tmp_path,
        "v/t/00/task.json",
        "v/t/00/artifacts/task.json",
        "v/t/00/artifacts/deep/suite.json",
        ".sandboxes/u/task.json",
        "elsewhere/task.json",
    )
    os.symlink(tmp_path / "elsewhere", tmp_path / "v" / "link")
    assert find_task_results(tmp_path) == [tmp_path / "elsewhere/task.json", tmp_path / "v/t/00/task.json"]
    assert find_run_files(tmp_path, SUITE_JSON) == []


def test_linked_files_count_when_they_resolve(tmp_path: Path) -> None:
    _touch(tmp_path, "real.json")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    os.symlink(tmp_path / "real.json", tmp_path / "a" / TASK_JSON)
    os.symlink(tmp_path / "missing.json", tmp_path / "b" / TASK_JSON)
    assert find_task_results(tmp_path) == [tmp_path / "a" / TASK_JSON]


def test_missing_run_directory_has_no_records(tmp_path: Path) -> None:
    assert find_task_results(tmp_path / "absent") == []


def test_unreadable_records_are_warnings_and_the_collector_is_back_on(tmp_path: Path) -> None:
    _touch(tmp_path, "v/t/00/task.json")
    (tmp_path / "v/t/00/task.json").write_text('{"task_id": 3}', encoding="utf-8")
    assert gc.isenabled()
    results, warnings = read_task_results(tmp_path)
    assert results == [] and len(warnings) == 1
    assert "v/t/00/task.json is not a valid task record" in warnings[0]
    assert gc.isenabled()


def test_collector_pause_restores_the_previous_state() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()
