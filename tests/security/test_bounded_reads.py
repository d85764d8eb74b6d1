"""A hostile agent's 200 GB sparse file and 2 GB print cost grading neither time nor the host's disk.

The real Claude Code CLI on the scripted model leaves a 200 GB sparse file (a few bytes of data
at its end) and a script that prints 2 GiB; the task's criteria read the file and run the script.
Every read is refused from the file's size at once and fails its criterion saying why (no partial
pass: `excludes` on an unread file fails too), the print is cut to its head and tail in memory,
and the harness's temporary directory never holds more than a few megabytes, sampled while it
runs. A second test raises `max_bytes` so far that reading would outlast `task_timeout`: the read
stops at the deadline and the unit ends TIMEOUT. Both run under bubblewrap and docker, with the
harness as root and as an ordinary user.
"""

from __future__ import annotations

import os
import secrets
import time

import pytest
from hygiene_kit import (
    claude_agent,
    criteria,
    disk_bytes,
    need_driver,
    records,
    run_disk_capped,
    survivors,
    tree,
    write_task,
)
from operators import DRIVERS, OPERATORS, Operator, operator

pytestmark = pytest.mark.slow

GIB = 1024**3
NO_FILE_SIZE_LIMIT = {"max_disk_mb": None}
"""The default max_disk_mb (RLIMIT_FSIZE) refuses a 200 GB length outright; lifted here, so that what
is tested is how the harness reads such a file (tests/security/test_bounded_units.py tests the limit)."""


def _run_watched(op: Operator, args: list[str]) -> tuple[str, float, int]:
    """The CLI as `op` with a TMPDIR of its own, stopped if that passes 256 MiB; (output, wall
    seconds, peak bytes its temporary directory held, open unlinked files included)."""
    harness_tmp = op.work / "harness-tmp"
    harness_tmp.mkdir()
    op.own(harness_tmp)
    start = time.monotonic()
    _code, out, peak = run_disk_capped(
        op, args, env={"TMPDIR": str(harness_tmp)}, watch=[harness_tmp], cap=256 * 1024 * 1024
    )
    return out, time.monotonic() - start, peak


@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize("driver", DRIVERS)
def test_a_sparse_file_and_a_flood_leave_grading_quick_and_the_disk_alone(driver: str, who: str) -> None:
    need_driver(driver)
    marker = f"{3000 + secrets.randbelow(900)}.5"
    plant = (
        "truncate -s 200G big.log && printf 'NEEDLE' >> big.log && printf '{\"a\": 1}' >> big.log; "
        "printf 'head -c 2147483648 /dev/zero | tr \"\\\\0\" x\\n' > flood.sh; "
        f"(setsid sleep {marker} >/dev/null 2>&1 &); ls -ls big.log"
    )
    spec = {
        "task_id": "unbounded",
        "description": "a 200 GB sparse file and a 2 GiB print against a 60 s task_timeout",
        "initial_prompt": "Make the log.",
        "agent": claude_agent(),
        "sandbox": {"driver": driver, "limits": NO_FILE_SIZE_LIMIT},
        "run_limits": {"task_timeout": 60},
        "success_criteria": [
            {"type": "file_contains", "path": "big.log", "includes": ["NEEDLE"], "description": "includes"},
            {"type": "file_contains", "path": "big.log", "excludes": ["FORBIDDEN"], "description": "excludes"},
            {"type": "file_matches_regex", "path": "big.log", "pattern": "NEEDLE", "description": "regex"},
            {"type": "json_check", "path": "big.log", "description": "json"},
            {"type": "run_command", "command": "sh flood.sh", "timeout": 50, "description": "flood"},
        ],
    }
    with operator(who) as op:
        task = write_task(op.work / "suite", spec, {"steps": [{"run_command": {"command": plant}}, {"reply": "done"}]})
        op.own(op.work / "suite")
        run_dir = op.work / "run"
        before = tree(op.work)
        try:
            out, wall, peak = _run_watched(op, ["run", str(task), "--run-dir", str(run_dir), "-b", "script"])
            assert not survivors(marker), "a process the agent left behind outlived its unit"
        finally:
            for pid in survivors(marker):
                os.kill(pid, 9)
        (record,) = records(run_dir)
        assert record["final_status"] == "FAILURE", out  # the honest grade: nothing was graded as read
        results = criteria(record)
        for name in ("includes", "excludes", "regex", "json"):
            assert results[name]["score"] == 0.0, results[name]
            assert "over the" in results[name]["details"] and "this criterion reads" in results[name]["details"]
        assert results["flood"]["score"] == 1.0, results["flood"]  # it ran to the end, its output was cut
        assert wall < 60, f"the unit took {wall:.0f}s"
        assert peak < 16 * 1024 * 1024, f"the harness's temp files held {peak / 1048576:.0f} MiB"
        assert disk_bytes(run_dir) < 64 * 1024 * 1024  # the sparse file stayed sparse when preserved
        assert tree(op.work, skip=(run_dir,)) == before | {"harness-tmp"}


@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize("driver", DRIVERS)
def test_a_read_stops_at_the_unit_deadline(driver: str, who: str) -> None:
    need_driver(driver)
    spec = {
        "task_id": "slow-read",
        "description": "max_bytes lifted so far that reading would outlast the task_timeout",
        "agent": {"type": "none"},
        "sandbox": {"driver": driver, "limits": NO_FILE_SIZE_LIMIT},
        "run_limits": {"task_timeout": 6},
        "pre_run": [{"command": "truncate -s 63G big.log"}],
        "success_criteria": [
            {
                "type": "file_contains",
                "path": "big.log",
                "includes": ["NEVER"],
                "max_bytes": 64 * GIB,
                "description": "long read",
            },
        ],
    }
    with operator(who) as op:
        task = write_task(op.work / "suite", spec)
        op.own(op.work / "suite")
        run_dir = op.work / "run"
        out, wall, _peak = _run_watched(op, ["run", str(task), "--run-dir", str(run_dir)])
        (record,) = records(run_dir)
        assert record["final_status"] == "TIMEOUT", out
        result = criteria(record)["long read"]
        assert result["score"] == 0.0 and "deadline passed" in result["details"], result
        assert wall < 40, f"grading ran {wall:.0f}s past a 6 s task_timeout"
