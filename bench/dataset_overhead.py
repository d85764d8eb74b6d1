"""Harness overhead on agentless dataset tasks: wall time, peak RSS and bytes written.

Runs `coder-eval run TASK -j 2` on a generated 100-row and 1000-row dataset task whose
pre_run writes one file and whose single criterion reads it. Prints the figures beside
the reference system's (5.3 s / 29.8 s, 247 MB peak, 99 MB on disk for 1000 rows) and our
targets (1 s / 6 s, 150 MB, 20 MB).

PYTHONDONTWRITEBYTECODE is removed from the child environment (and one warm-up run made)
so start-up is measured with bytecode caches, as on a user's machine.

`--driver bubblewrap` (or `docker`) runs the same tasks under that sandbox driver too and prints
its per-unit overhead next to tempdir's, and the ratio (aim for bubblewrap: within 1.3x).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REFERENCE = {100: 5.3, 1000: 29.8}
TARGET = {100: 1.0, 1000: 6.0}


def write_task(path: Path, rows: int) -> None:
    path.write_text(
        yaml.safe_dump(
            {
                "task_id": f"rows-{rows}",
                "description": "agentless dataset overhead benchmark",
                "agent": {"type": "none"},
                "dataset": {"rows": [{"id": f"r{i:04d}", "word": f"w{i}"} for i in range(rows)]},
                "pre_run": [{"command": "printf '${row.word}' > out.txt"}],
                "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "row wrote out.txt"}],
            }
        )
    )


def disk_usage(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _failed_rows(run_dir: Path) -> str:
    """The rows that did not succeed, with their reason (so a failed benchmark run says why)."""
    try:
        rows = json.loads((run_dir / "run.json").read_text())["task_results"]
    except (OSError, ValueError, KeyError):
        return " (no run.json)"
    bad = [f"{r['task_id']}: {r['status']} {r.get('error_message') or ''}" for r in rows if r["status"] != "SUCCESS"]
    return "\n" + "\n".join(bad[:10])


def run_once(cli: str, task: Path, run_dir: Path, env: dict[str, str], driver: str = "tempdir") -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(
        [cli, "run", str(task), "-j", "2", "--run-dir", str(run_dir), "--driver", driver],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=900,
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"run failed ({proc.returncode}): {proc.stderr[-2000:]}{_failed_rows(run_dir)}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[100, 1000])
    parser.add_argument("--driver", choices=["tempdir", "bubblewrap", "docker"], default="tempdir")
    args = parser.parse_args()
    drivers = ["tempdir"] if args.driver == "tempdir" else ["tempdir", args.driver]
    cli = str(Path(sys.executable).with_name("coder-eval"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        warm = root / "warm.yaml"
        write_task(warm, 5)
        for driver in drivers:
            run_once(cli, warm, root / f"warm-{driver}", env, driver)
        header = f"{'driver':>10} {'rows':>6} {'wall':>8} {'per unit':>9} {'target':>8} {'reference':>10}"
        print(f"{header} {'peak RSS':>10} {'on disk':>10}")
        per_unit: dict[tuple[str, int], float] = {}
        for rows in args.rows:
            task = root / f"rows{rows}.yaml"
            write_task(task, rows)
            for driver in drivers:
                run_dir = root / f"run{rows}-{driver}"
                wall, peak_mb = run_once(cli, task, run_dir, env, driver)
                size_mb = disk_usage(run_dir) / 1e6
                per_unit[driver, rows] = wall / rows
                print(
                    f"{driver:>10} {rows:>6} {wall:>7.2f}s {wall / rows * 1000:>7.1f}ms "
                    f"{TARGET.get(rows, float('nan')):>7.1f}s {REFERENCE.get(rows, float('nan')):>9.1f}s "
                    f"{peak_mb:>8.0f}MB {size_mb:>8.1f}MB"
                )
                shutil.rmtree(run_dir, ignore_errors=True)
            if len(drivers) > 1:
                ratio = per_unit[drivers[1], rows] / per_unit["tempdir", rows]
                print(f"{'':>10} {rows:>6} {drivers[1]} / tempdir per unit: {ratio:.2f}x")
    print("peak RSS is the largest child process seen so far (ru_maxrss of children)")


if __name__ == "__main__":
    main()
