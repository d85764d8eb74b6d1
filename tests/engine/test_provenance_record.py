"""task_config in each record: a plain task keeps its file's text; a big dataset's rows keep a digest."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from coder_eval.engine.provenance import ROW_SOURCE_YAML_LIMIT, task_config_record
from coder_eval.loading.loader import load_tasks


def _task_file(directory: Path, rows: int | None) -> Path:
    doc: dict[str, object] = {
        "task_id": "prov",
        "description": "provenance",
        "agent": {"type": "none"},
        "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "written"}],
    }
    if rows is not None:
        doc["dataset"] = {"rows": [{"id": f"r{i:05d}", "word": f"w{i}"} for i in range(rows)]}
    path = directory / "task.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def test_plain_task_and_small_dataset_keep_the_source_text(tmp_path: Path) -> None:
    for rows, sub in [(None, "plain"), (3, "small")]:
        (tmp_path / sub).mkdir()
        path = _task_file(tmp_path / sub, rows)
        record = task_config_record(load_tasks([str(path)]).tasks[0])
        text = path.read_text(encoding="utf-8")
        assert record["source_yaml"] == text
        assert record["source_sha256"] == hashlib.sha256(text.encode()).hexdigest()
        assert "source_yaml_omitted" not in record


def test_rows_of_a_big_dataset_keep_row_and_digest_not_the_whole_file(tmp_path: Path) -> None:
    path = _task_file(tmp_path, 2000)
    text = path.read_text(encoding="utf-8")
    assert len(text) > ROW_SOURCE_YAML_LIMIT
    tasks = load_tasks([str(path)]).tasks
    record = task_config_record(tasks[7])
    assert record["source_yaml"] is None
    assert record["row"] == {"id": "r00007", "word": "w7"}
    assert record["source_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert record["source_file"] == str(path.resolve())
    assert "holds the whole dataset" in record["source_yaml_omitted"]


def test_an_edited_task_file_is_read_again(tmp_path: Path) -> None:
    path = _task_file(tmp_path, None)
    task = load_tasks([str(path)]).tasks[0]
    first = task_config_record(task)["source_yaml"]
    path.write_text(path.read_text(encoding="utf-8") + "# edited, longer\n", encoding="utf-8")
    assert task_config_record(task)["source_yaml"] != first
