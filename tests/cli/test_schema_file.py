"""docs/task.schema.json (referenced by the examples) matches what `coder-eval schema` prints."""

from __future__ import annotations

from pathlib import Path

from coder_eval.schema_export import task_json_schema_text

REPO = Path(__file__).resolve().parents[2]


def test_shipped_schema_is_current():
    shipped = (REPO / "docs" / "task.schema.json").read_text()
    assert shipped == task_json_schema_text(), "run: coder-eval schema -o docs/task.schema.json"
