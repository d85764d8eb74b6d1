"""Units are bounded by default: the largest file, the disk their workspace and HOME hold, and /tmp.

Code the agent wrote, run by a criterion at grading (`run_command`), tries a 200 GB sparse file,
fills the workspace past `max_disk_mb` and floods /tmp past `tmp_size_mb`. Each attempt must be
refused by the kernel or stopped by the harness, end with an honest record that says why, and
leave the host's disk as it was. The sizes in this file stay small: the limits under test are set
low, so a regression fails quickly instead of filling the machine.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from operators import DRIVERS, OPERATORS, operator, require_driver

pytestmark = pytest.mark.slow


def _task(task_id: str, driver: str, command: str, limits: dict[str, Any]) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "description": "a unit that tries to fill the disk",
        "initial_prompt": "unused",
        "agent": {"type": "none"},
        "sandbox": {"driver": driver, "limits": limits},
        "success_criteria": [{"type": "run_command", "command": command, "description": "the flood"}],
    }


CASES = {
    # truncate only sets a size, yet RLIMIT_FSIZE refuses it: no file may claim more than the cap
    "sparse": ("truncate -s 200G huge.bin && echo MADE", {"max_disk_mb": 64}),
    # 96 MiB of real data against a 32 MiB cap: the disk watch or the file size limit stops it
    "fill": (
        "for i in 1 2 3 4 5 6; do head -c 16M /dev/zero > part$i.bin || exit 1; done; sleep 5; echo FILLED",
        {"max_disk_mb": 32},
    ),
    # /tmp is a tmpfs of its own, 16 MiB here
    "tmp": ("head -c 64M /dev/zero > /tmp/flood.bin && echo FLOODED", {"tmp_size_mb": 16}),
}


@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize("driver", DRIVERS)
def test_disk_and_tmp_are_bounded(driver: str, who: str) -> None:
    require_driver(driver)
    with operator(who) as op:
        suite = op.work / "suite"
        suite.mkdir()
        files = []
        for name, (command, limits) in CASES.items():
            path = suite / f"{name}.yaml"
            path.write_text(yaml.safe_dump(_task(name, driver, command, limits), sort_keys=False))
            files.append(str(path))
        op.own(suite)
        usage_before = shutil.disk_usage(op.work).used
        run_dir = op.work / "run"
        proc = op.cli("run", *files, "-j", "1", "--run-dir", str(run_dir))
        records = {}
        for path in run_dir.rglob("task.json"):
            record = json.loads(path.read_text())
            records[record["task_id"]] = record
        out = proc.stdout + proc.stderr
        assert set(records) == set(CASES), out
        results = {k: r["success_criteria_results"][0] for k, r in records.items()}
        assert results["sparse"]["score"] == 0.0, results["sparse"]
        assert "MADE" not in (results["sparse"].get("details") or ""), results["sparse"]
        fill = records["fill"]
        # either the file size limit refused a write (an honest failure) or the watch ended the unit
        assert fill["final_status"] in ("ERROR", "FAILURE") and results["fill"]["score"] == 0.0, fill
        if fill["final_status"] == "ERROR":
            assert "disk limit exceeded" in (fill.get("error_message") or ""), fill
        assert results["tmp"]["score"] == 0.0, results["tmp"]
        # what the units wrote was stopped near its caps; nothing like the attempted sizes stayed
        assert shutil.disk_usage(op.work).used - usage_before < 512 * 1024 * 1024
        for record in records.values():
            kept = record.get("sandbox_path")
            if kept and Path(kept).exists():
                assert sum(p.stat().st_blocks * 512 for p in Path(kept).rglob("*") if p.is_file()) < 256 * 2**20
