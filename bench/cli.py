"""Wall-clock benchmark of the `coder-eval` command line (start-up, plan, evaluate).

Each command runs as a subprocess of the installed `coder-eval` entry point (the one
next to this interpreter), exactly as a user would start it. Reported per command:
median, p90 and min over N timed runs, after warm-up runs that also populate the
bytecode caches. PYTHONDONTWRITEBYTECODE is removed from the subprocess environment:
with it set, every run recompiles every module and start-up is measured wrongly.

    .venv/bin/python bench/cli.py [--runs 15] [--warmup 2]

Standard library only. Exit status 0 when every command ran as expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TARGETS = {"--help": 0.25, "plan": 0.30, "evaluate": 0.50}
"""Targets from the performance issue, in seconds (median)."""
PREVIOUS = {"--help": 1.33, "plan": 1.32, "evaluate": 2.41}
"""What the system being rebuilt took for the same commands, in seconds."""

PY = shlex.quote(sys.executable)

TASK_YAML = f"""\
task_id: bench-nine-criteria
description: "Benchmark task: nine criteria of seven kinds graded against a ready-made solution."
initial_prompt: "Write app.py, result.json (valid against schema.json) and label.txt."
tags: [bench]
agent:
  type: none
success_criteria:
  - type: file_exists
    description: app.py exists
    path: app.py
  - type: file_contains
    description: app.py greets and imports datetime
    path: app.py
    includes: ["Hello, bench!", "import datetime"]
    excludes: ["TODO"]
  - type: file_check
    description: app.py defines main and has no eval
    path: app.py
    includes: ["def main"]
    patterns:
      - pattern: '^def main\\(\\) -> None:'
        flags: 8
      - pattern: 'eval\\('
        must_match: false
  - type: file_matches_regex
    description: README names the version
    path: README.md
    pattern: 'version \\d+\\.\\d+'
  - type: json_check
    description: result.json matches its schema and values
    path: result.json
    json_schema: schema.json
    assertions:
      - {{expression: name, operator: equals, expected: bench}}
      - {{expression: length(items), operator: gte, expected: 3}}
      - {{expression: "items[?score > `0.5`] | length(@)", operator: equals, expected: 2}}
      - {{expression: meta.ok, operator: type, expected: boolean}}
  - type: run_command
    description: app.py runs
    command: {PY} -c "import runpy; runpy.run_path('app.py', run_name='__main__')"
    timeout: 30
  - type: classification_match
    description: label is positive
    path: label.txt
    expected_label: positive
    allowed_labels: [positive, negative, neutral]
  - type: run_command
    description: app.py prints the greeting
    command: {PY} app.py
    expected_stdout: "Hello, bench!"
    stdout_match: contains
  - type: file_check
    description: a test file exists and asserts
    path: "tests/test_*.py"
    includes: ["assert"]
"""

SOLUTION: dict[str, str] = {
    "app.py": "import datetime\n\n\ndef main() -> None:\n    print('Hello, bench!')\n"
    "    print(datetime.date.today())\n\n\nif __name__ == '__main__':\n    main()\n",
    "README.md": "# Bench app\n\nversion 1.4 of the greeting app.\n",
    "result.json": json.dumps(
        {
            "name": "bench",
            "items": [{"id": 1, "score": 0.9}, {"id": 2, "score": 0.7}, {"id": 3, "score": 0.2}],
            "meta": {"ok": True},
        }
    ),
    "schema.json": json.dumps(
        {
            "type": "object",
            "required": ["name", "items", "meta"],
            "properties": {
                "name": {"type": "string"},
                "items": {"type": "array", "items": {"type": "object", "required": ["id", "score"]}},
                "meta": {"type": "object"},
            },
        }
    ),
    "label.txt": "positive\n",
    "tests/test_app.py": "def test_truth() -> None:\n    assert 1 + 1 == 2\n",
}


@dataclass
class Bench:
    name: str
    argv: list[str]
    times: list[float]


def write_fixture(root: Path) -> tuple[Path, Path]:
    """The nine-criterion task and a solution directory that passes all of it."""
    task = root / "bench_task.yaml"
    task.write_text(TASK_YAML, encoding="utf-8")
    solution = root / "solution"
    for rel, content in SOLUTION.items():
        path = solution / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return task, solution


Completed = subprocess.CompletedProcess[bytes]


def run_once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, Completed]:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - start, proc


def p90(values: list[float]) -> float:
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15, help="timed runs per command (default 15)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed warm-up runs per command (default 2)")
    args = parser.parse_args()
    if args.runs < 1 or args.warmup < 1:
        parser.error("--runs and --warmup must be at least 1 (a warm-up run writes the bytecode caches)")

    exe = Path(sys.executable).parent / ("coder-eval.exe" if os.name == "nt" else "coder-eval")
    if not exe.is_file():
        print(f"error: no coder-eval entry point next to {sys.executable}; install the package first", file=sys.stderr)
        return 1
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    removed = "PYTHONDONTWRITEBYTECODE" in os.environ

    ok = True
    with tempfile.TemporaryDirectory(prefix="coder-eval-bench-") as tmp:
        root = Path(tmp)
        task, solution = write_fixture(root)
        runs = root / "runs"
        counter = iter(range(1_000_000))

        def evaluate_argv() -> list[str]:
            run_dir = runs / f"r{next(counter)}"
            return [str(exe), "evaluate", str(task), str(solution), "--run-dir", str(run_dir)]

        benches = [
            Bench("--help", [str(exe), "--help"], []),
            Bench("plan", [str(exe), "plan", str(task)], []),
            Bench("evaluate", [], []),
        ]
        print(f"coder-eval benchmark: {exe}")
        print(
            f"python {sys.version.split()[0]}; {args.warmup} warm-up + {args.runs} timed runs per command; "
            f"fresh --run-dir per evaluate under {runs}"
        )
        print(
            "PYTHONDONTWRITEBYTECODE removed from the subprocess environment"
            + (" (it is set in this shell)" if removed else " (it was not set)")
            + "; warm-up runs write the bytecode caches\n"
        )
        for bench in benches:
            for i in range(args.warmup + args.runs):
                argv = evaluate_argv() if bench.name == "evaluate" else bench.argv
                elapsed, proc = run_once(argv, env, root)
                if proc.returncode != 0:
                    ok = False
                    print(
                        f"error: `{shlex.join(argv)}` exited {proc.returncode}:\n"
                        f"{proc.stdout.decode(errors='replace')}{proc.stderr.decode(errors='replace')}",
                        file=sys.stderr,
                    )
                    break
                if i >= args.warmup:
                    bench.times.append(elapsed)

        header = f"{'command':<10} {'median':>8} {'p90':>8} {'min':>8} {'target':>8} {'before':>8}  verdict"
        print(header)
        print("-" * len(header))
        for bench in benches:
            if not bench.times:
                print(f"{bench.name:<10} {'failed':>8}")
                continue
            median = statistics.median(bench.times)
            verdict = "meets target" if median <= TARGETS[bench.name] else "over target"
            print(
                f"{bench.name:<10} {median:>7.3f}s {p90(bench.times):>7.3f}s {min(bench.times):>7.3f}s "
                f"{TARGETS[bench.name]:>7.2f}s {PREVIOUS[bench.name]:>7.2f}s  {verdict}"
            )
        print(
            "\ncommands: `coder-eval --help`; `coder-eval plan TASK`; "
            "`coder-eval evaluate TASK SOLUTION --run-dir DIR` (9 criteria, all pass)"
        )
        print("target = goal from the performance issue; before = the system being rebuilt")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
