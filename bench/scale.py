"""Scale: agentless dataset runs of 1,000 and 10,000 rows, local vs ray, and the report-side timings.

For each row count, runs `coder-eval run TASK -j 2` on a generated dataset task whose pre_run
writes one file and whose single criterion reads it: on the local executor under each sandbox
driver asked for (`--driver tempdir` and `--driver auto` by default; the table says what `auto`
resolved to here), each twice: with the default per-unit Python environment (`sandbox.python`
omitted, so every unit gets its own venv cloned from one built per task) and with `python: null`
(the host's interpreter), followed by a row with the difference per unit, which is what the default
environment costs (aim: under 10 ms). `--repeat N` runs the two N times, interleaved, and prints the
medians. Then on a throwaway Ray cluster on this machine (a head with no CPUs for units
plus two one-CPU worker nodes, started with `ray start` on 127.0.0.1, tempdir driver). Prints
wall time, CPU time (user + sys of the CLI process and every process it waited for), per-row
overhead (wall / rows and CPU / rows), the driver process's peak RSS and the run directory's size.
Then times `plan` of one task and `aggregate`, `report -f md` and `report -f junit` over the
1,000-row run (best of three, wall and CPU).

Aims on a 2-core machine: 1,000 rows under 4 s and 10,000 under 40 s locally with peak RSS under
120 MB; `plan` of one task under 0.25 s; report/aggregate/JUnit over 1,000 rows under 0.3 s.
The aims are printed beside the figures. The Ray cluster's own processes (about 780 MB per node)
are not counted in peak RSS, and their CPU time is not in the CPU column (only the driver's).
Ray at 10,000 rows is skipped, with the reason printed, when the 1,000-row Ray run suggests it
would take more than `--ray-limit` seconds.

To compare two trees of the source with the same script, point PYTHONPATH at the other tree's
`src` directory (the CLI and the Ray nodes inherit it).
Usage: python bench/scale.py [--rows 1000 10000] [--driver tempdir auto] [--repeat 1] [--no-ray]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

RUN_AIMS = {1000: 4.0, 10000: 40.0}
ENV_AIM_MS = 10.0
"""What the default per-unit Python environment may cost over `python: null`, per unit."""
RSS_AIM_MB = 120.0
PLAN_AIM, REPORT_AIM = 0.25, 0.3
CLI = str(Path(sys.executable).with_name("coder-eval"))


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mb: float


def write_task(directory: Path, rows: int, *, host_python: bool = False) -> Path:
    """The task file, alone in its own directory (the task directory is what TASK_DIR shows commands).

    `host_python` opts the task out of its per-unit environment (`sandbox.python: null`).
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "task.yaml"
    task = {
        "task_id": f"rows-{rows}",
        "description": "agentless dataset scale benchmark",
        "agent": {"type": "none"},
        "dataset": {"rows": [{"id": f"r{i:05d}", "word": f"w{i}"} for i in range(rows)]},
        "pre_run": [{"command": "printf ok > out.txt"}],
        "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "row wrote out.txt"}],
    }
    if host_python:
        task["sandbox"] = {"python": None}
    path.write_text(yaml.safe_dump(task), encoding="utf-8")
    return path


def disk_usage(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def timed(args: list[str], env: dict[str, str]) -> Sample:
    """Wall and CPU seconds and peak RSS (MB) of one CLI call; exits when it fails (exit 1, failed rows, is fine)."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1):
            errors.seek(0)
            sys.exit(f"{' '.join(args[:3])} failed ({proc.returncode}): {errors.read()[-2000:].decode()}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def run_rows(task: Path, run_dir: Path, env: dict[str, str], extra: list[str]) -> tuple[Sample, int]:
    sample = timed([CLI, "run", str(task), "-j", "2", "--run-dir", str(run_dir), *extra], env)
    return sample, disk_usage(run_dir)


HEADER = (
    f"{'where':>6} {'driver':>24} {'rows':>6} {'wall s':>7} {'cpu s':>7} {'aim s':>6} "
    f"{'ms/row':>7} {'cpu ms/row':>10} {'peak MB':>8} {'aim MB':>7} {'disk MB':>8}"
)


def row(where: str, driver: str, rows: int, sample: Sample, disk: int) -> None:
    local = where == "local"
    aim = f"{RUN_AIMS[rows]:.0f}" if local and rows in RUN_AIMS else "-"
    rss_aim = f"{RSS_AIM_MB:.0f}" if local else "-"
    print(
        f"{where:>6} {driver:>24} {rows:>6} {sample.wall:>7.2f} {sample.cpu:>7.2f} {aim:>6} "
        f"{1000 * sample.wall / rows:>7.2f} {1000 * sample.cpu / rows:>10.2f} {sample.rss_mb:>8.0f} "
        f"{rss_aim:>7} {disk / 1e6:>8.1f}",
        flush=True,
    )


def median_sample(samples: list[Sample]) -> Sample:
    return Sample(*(statistics.median(getattr(s, f) for s in samples) for f in ("wall", "cpu", "rss_mb")))


def env_cost_row(driver: str, rows: int, default: Sample, null: Sample) -> None:
    """What the default environment costs per unit over python: null (wall and CPU), beside its aim."""
    wall, cpu = 1000 * (default.wall - null.wall) / rows, 1000 * (default.cpu - null.cpu) / rows
    print(
        f"{'env':>6} {driver + ' venv-null':>24} {rows:>6} {'':>7} {'':>7} {'':>6} {wall:>7.2f} {cpu:>10.2f}  "
        f"per-unit cost of the default Python environment (aim < {ENV_AIM_MS:.0f} ms)",
        flush=True,
    )


def compare_envs(root: Path, rows: int, driver: str, label: str, env: dict[str, str], repeat: int) -> Path:
    """Run the dataset with the default environment and with python: null, `repeat` times interleaved."""
    tasks = {
        False: write_task(root / f"rows{rows}", rows),
        True: write_task(root / f"rows{rows}-null", rows, host_python=True),
    }
    samples: dict[bool, list[Sample]] = {False: [], True: []}
    disks: dict[bool, int] = {}
    for attempt in range(repeat):
        for null in (False, True) if attempt % 2 == 0 else (True, False):  # alternate which goes first
            run_dir = root / f"local{rows}-{driver}{'-null' if null else ''}-{attempt}"
            sample, disks[null] = run_rows(tasks[null], run_dir, env, ["--driver", driver])
            samples[null].append(sample)
            if attempt < repeat - 1:
                shutil.rmtree(run_dir, ignore_errors=True)
    default, null = median_sample(samples[False]), median_sample(samples[True])
    row("local", label, rows, default, disks[False])
    row("local", f"{label} py:null", rows, null, disks[True])
    env_cost_row(label, rows, default, null)
    return root / f"local{rows}-{driver}-{repeat - 1}"


def best_of(args: list[str], env: dict[str, str], times: int = 3) -> Sample:
    samples = [timed(args, env) for _ in range(times)]
    wall, cpu = min(s.wall for s in samples), min(s.cpu for s in samples)
    return Sample(wall, cpu, statistics.median(s.rss_mb for s in samples))


def report_timings(task: Path, run_dir: Path, env: dict[str, str]) -> None:
    rows = sum(1 for _ in run_dir.glob("*/*/*/*/task.json"))
    print(f"\n{'command (best of 3)':<34} {'wall s':>7} {'cpu s':>7} {'aim s':>6} {'peak MB':>8}")
    for label, args, aim in [
        ("plan (one task)", [CLI, "plan", "-q", str(task)], PLAN_AIM),
        (f"aggregate ({rows} rows)", [CLI, "aggregate", str(run_dir)], REPORT_AIM),
        (f"report -f md ({rows} rows)", [CLI, "report", str(run_dir), "-o", str(run_dir.parent / "r.md")], REPORT_AIM),
        (
            f"report -f junit ({rows} rows)",
            [CLI, "report", str(run_dir), "-f", "junit", "-o", str(run_dir.parent / "r.xml")],
            REPORT_AIM,
        ),
    ]:
        s = best_of(args, env)
        print(f"{label:<34} {s.wall:>7.3f} {s.cpu:>7.3f} {aim:>6} {s.rss_mb:>8.0f}", flush=True)


def auto_resolves_to(env: dict[str, str]) -> str:
    probe = "from coder_eval.sandbox.auto import resolve_auto; print(resolve_auto())"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    return out.stdout.strip() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--driver", nargs="*", default=["tempdir", "auto"], help="local sandbox drivers to measure")
    parser.add_argument("--no-ray", action="store_true", help="only the local executor")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each python variant (medians printed)")
    parser.add_argument("--ray-limit", type=float, default=300.0, help="skip a Ray run expected to take longer (s)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "RAY_ADDRESS")}
    names = {d: (f"auto={auto_resolves_to(env)}" if d == "auto" else d) for d in args.driver}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for driver in args.driver:  # bytecode and page cache
            run_rows(write_task(root / "warm", 5), root / f"warm-{driver}", env, ["--driver", driver])
        print(HEADER)
        first: Path | None = None
        for rows in args.rows:
            for driver in args.driver:
                run_dir = compare_envs(root, rows, driver, names[driver], env, max(1, args.repeat))
                first = first or run_dir
        if not args.no_ray:
            ray_rows(root, args.rows, env, args.ray_limit)
        if first is not None:
            report_timings(root / f"rows{min(args.rows)}" / "task.yaml", first, env)


def ray_rows(root: Path, counts: list[int], env: dict[str, str], limit: float) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "cluster"))
    from raycluster import ray_cluster, ray_env

    per_row: float | None = None
    with ray_cluster(workers=2, head_cpus=0) as cluster:
        ray = {**env, **ray_env()}
        for rows in sorted(counts):
            if per_row is not None and per_row * rows > limit:
                expected = per_row * rows
                reason = f"skipped: about {expected:.0f} s expected, over the {limit:.0f} s limit"
                print(f"{'ray':>6} {'tempdir':>24} {rows:>6} {reason}")
                continue
            task = root / f"rows{rows}" / "task.yaml"
            extra = ["--executor", "ray", "--ray-address", cluster.address, "--driver", "tempdir"]  # type: ignore[attr-defined]
            sample, disk = run_rows(task, root / f"ray{rows}", ray, extra)
            per_row = sample.wall / rows
            row("ray", "tempdir", rows, sample, disk)


if __name__ == "__main__":
    main()
