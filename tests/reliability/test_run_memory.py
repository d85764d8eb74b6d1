"""A long agentless run keeps the driver's memory flat.

A run holds each finished unit's compact record in a spool file and writes run.json, run.md,
JUnit and the experiment and suite files as streams (docs/performance.md, "Memory of a long
run"). This runs the same dataset task at two sizes through the CLI, under an address-space
limit, and bounds how much the driver's peak RSS grows with the row count.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow

GIB = 1024**3
AS_LIMIT = 3 * GIB
SMALL, BIG = 100, 2000
GROWTH_LIMIT_MIB = 20.0
"""From 100 to 2,000 rows the peak grew by about 6 MiB with the streams and by 36 MiB before them,
when the end of the run decoded every row's record and built the summaries whole."""

_SCRIPT = (
    "import resource, sys\n"
    f"resource.setrlimit(resource.RLIMIT_AS, ({AS_LIMIT}, {AS_LIMIT}))\n"
    "from coder_eval.cli.app import main\n"
    "sys.argv = ['coder-eval', 'run', sys.argv[1], '--run-dir', sys.argv[2], '--driver', 'tempdir', '-j', '2',\n"
    "            '--junit-xml', sys.argv[3]]\n"
    "try:\n    main()\nfinally:\n"
    # VmHWM is this process's own high-water mark (ru_maxrss of a child also counts pytest's)
    "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
    "    print('PEAK_KIB', hwm, flush=True)\n"
)


def _peak_mib(where: Path, rows: int) -> float:
    where.mkdir()
    task = where / "task.yaml"
    task.write_text(
        yaml.safe_dump(
            {
                "task_id": f"rows-{rows}",
                "description": "memory of a long run",
                "agent": {"type": "none"},
                "dataset": {"rows": [{"id": f"r{i:05d}"} for i in range(rows)]},
                "pre_run": [{"command": "printf ok > out.txt"}],
                "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "wrote out.txt"}],
            }
        ),
        encoding="utf-8",
    )
    run_dir, junit = where / "run", where / "junit.xml"
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(task), str(run_dir), str(junit)],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert "PEAK_KIB" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    summary = json.loads((run_dir / "run.json").read_text())
    assert summary["tasks_run"] == rows and summary["tasks_succeeded"] == rows
    assert len(summary["task_results"]) == rows and junit.read_text().count("<testcase ") == rows
    assert len(json.loads((run_dir / "experiment.json").read_text())["task_summaries"]) == rows
    return int(proc.stdout.rsplit("PEAK_KIB", 1)[1].split()[0]) / 1024


def test_peak_memory_grows_little_with_the_row_count(tmp_path: Path) -> None:
    small = _peak_mib(tmp_path / "small", SMALL)
    big = _peak_mib(tmp_path / "big", BIG)
    growth = big - small
    assert growth < GROWTH_LIMIT_MIB, f"{SMALL} rows peaked at {small:.0f} MiB, {BIG} rows at {big:.0f} MiB"
