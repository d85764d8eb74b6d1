"""docs/task.schema.json (referenced by the examples) matches what `coder-eval schema` prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_shipped_schema_is_current():
    # A fresh process: tests elsewhere register extra agent kinds, which would join the union.
    printed = subprocess.run(
        [sys.executable, "-m", "coder_eval", "schema"], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    shipped = (REPO / "docs" / "task.schema.json").read_text()
    assert shipped == printed, "run: coder-eval schema -o docs/task.schema.json"
