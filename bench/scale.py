"""Scale: agentless dataset runs of 1,000 and 10,000 rows, local vs ray, and the report-side timings.

For each row count, runs `coder-eval run TASK` on a generated dataset task whose pre_run writes
one file and whose single criterion reads it, first on the local executor (`-j 2`), then on a
throwaway Ray cluster on this machine (a head with no CPUs for units plus two one-CPU worker
nodes, started with `ray start` on 127.0.0.1). Prints wall time, per-row overhead (wall / rows),
the driver's peak RSS and the run directory's size on disk. Then times `plan` of the task,
`aggregate`, `report -f md` and `report -f junit` over the 1,000-row local run.

Aims on a 2-core machine: 1,000 rows under 4 s and 10,000 under 40 s locally with peak RSS under
120 MB; `plan` of one task under 0.25 s; report/aggregate/JUnit over 1,000 rows under 0.3 s.
The Ray cluster's own processes (about 780 MB per node) are not counted in peak RSS.
Usage: python bench/scale.py [--rows 1000 10000] [--no-ray]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

AIMS = {1000: 4.0, 10000: 40.0}
CLI = str(Path(sys.executable).with_name("coder-eval"))


def write_task(path: Path, rows: int) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "task_id": f"rows-{rows}",
                "description": "agentless dataset scale benchmark",
                "agent": {"type": "none"},
                "dataset": {"rows": [{"id": f"r{i:05d}", "word": f"w{i}"} for i in range(rows)]},
                "pre_run": [{"command": "printf ok > out.txt"}],
                "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "row wrote out.txt"}],
            }
        ),
        encoding="utf-8",
    )
    return path


def disk_usage(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one CLI call; exits when it fails (exit 1, failed rows, is fine)."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1):
            errors.seek(0)
            sys.exit(f"{' '.join(args[:3])} failed ({proc.returncode}): {errors.read()[-2000:].decode()}")
    return wall, usage.ru_maxrss / 1024


def run_rows(task: Path, run_dir: Path, env: dict[str, str], extra: list[str]) -> tuple[float, float, int]:
    wall, rss = timed([CLI, "run", str(task), "-j", "2", "--run-dir", str(run_dir), *extra], env)
    return wall, rss, disk_usage(run_dir)


def row(label: str, rows: int, wall: float, rss: float, disk: int) -> None:
    aim = f"{AIMS[rows]:.0f}" if label == "local" and rows in AIMS else "-"
    print(f"{label:>6} {rows:>7} {wall:>8.2f} {1000 * wall / rows:>10.2f} {aim:>6} {rss:>9.0f} {disk / 1e6:>9.1f}")


def report_timings(task: Path, run_dir: Path, env: dict[str, str]) -> None:
    print(f"\n{'command':<28} {'wall s':>8} {'aim s':>6}")
    for label, args, aim in [
        ("plan (one task)", [CLI, "plan", "-q", str(task)], 0.25),
        ("aggregate", [CLI, "aggregate", str(run_dir)], 0.3),
        ("report -f md", [CLI, "report", str(run_dir), "-o", str(run_dir.parent / "r.md")], 0.3),
        ("report -f junit", [CLI, "report", str(run_dir), "-f", "junit", "-o", str(run_dir.parent / "r.xml")], 0.3),
    ]:
        wall, _ = timed(args, env)
        print(f"{label:<28} {wall:>8.2f} {aim or '-':>6}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--no-ray", action="store_true", help="only the local executor")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "RAY_ADDRESS")}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run_rows(write_task(root / "warm.yaml", 5), root / "warm", env, [])  # bytecode and page cache
        results: dict[int, Path] = {}
        print(f"{'where':>6} {'rows':>7} {'wall s':>8} {'ms/row':>10} {'aim s':>6} {'peak MB':>9} {'disk MB':>9}")
        for rows in args.rows:
            task = write_task(root / f"rows{rows}.yaml", rows)
            results[rows] = root / f"local{rows}"
            row("local", rows, *run_rows(task, results[rows], env, []))
        if not args.no_ray:
            ray_rows(root, args.rows, env)
        first = min(results)
        report_timings(root / f"rows{first}.yaml", results[first], env)


def ray_rows(root: Path, counts: list[int], env: dict[str, str]) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "cluster"))
    from raycluster import ray_cluster, ray_env

    with ray_cluster(workers=2, head_cpus=0) as cluster:
        ray = {**env, **ray_env()}
        for rows in counts:
            task = root / f"rows{rows}.yaml"
            extra = ["--executor", "ray", "--ray-address", cluster.address]  # type: ignore[attr-defined]
            row("ray", rows, *run_rows(task, root / f"ray{rows}", ray, extra))


if __name__ == "__main__":
    main()
