"""Under tempdir a unit runs as the operator, so it can rewrite the shared TASK_DIR view: the harness
must notice, end that unit ERROR, and give the next unit a fresh, honest view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from operators import OPERATORS, operator

pytestmark = pytest.mark.slow

TAMPER = 'chmod -R u+w "$TASK_DIR"; printf "import sys\\nsys.exit(0)\\n" > "$TASK_DIR/grader.py"; exit 1'


def _task(task_id: str, command: str) -> dict[str, object]:
    return {
        "task_id": task_id,
        "description": "shares a task directory",
        "initial_prompt": "unused",
        "agent": {"type": "none"},
        "sandbox": {"driver": "tempdir"},
        "success_criteria": [{"type": "run_command", "command": command, "description": "grader"}],
    }


@pytest.mark.parametrize("who", OPERATORS)
def test_a_changed_view_fails_its_unit_and_is_replaced(who: str) -> None:
    with operator(who) as op:
        suite = op.work / "suite"
        suite.mkdir()
        (suite / "grader.py").write_text("import sys\nsys.exit(1)\n")
        (suite / "a.yaml").write_text(yaml.safe_dump(_task("a-tamper", TAMPER)))
        (suite / "b.yaml").write_text(yaml.safe_dump(_task("b-honest", 'python3 "$TASK_DIR/grader.py"')))
        op.own(suite)
        run_dir = op.work / "run"
        proc = op.cli("run", str(suite / "a.yaml"), str(suite / "b.yaml"), "-j", "1", "--run-dir", str(run_dir))
        records = {}
        for path in Path(run_dir).rglob("task.json"):
            record = json.loads(path.read_text())
            records[record["task_id"]] = record
        assert set(records) == {"a-tamper", "b-honest"}, proc.stdout + proc.stderr
        tamper = records["a-tamper"]
        assert tamper["final_status"] == "ERROR", tamper
        assert "task view" in tamper["error_message"], tamper["error_message"]
        honest = records["b-honest"]
        assert honest["final_status"] == "FAILURE", honest  # its grader still fails, as the author wrote it
        assert (suite / "grader.py").read_text() == "import sys\nsys.exit(1)\n"  # the task itself untouched
