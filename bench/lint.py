"""`coder-eval lint --static` over a generated suite: how long the static rules take at scale.

Writes `--tasks` task files (default 500) into a temporary directory, each a task with a
prompt of a few hundred characters drawn from a small vocabulary (so many prompts are alike, the
worst case for the near-duplicate rule CE105) and the same criterion kinds (so every pair is a
candidate), plus a share of near-copies that CE105 must flag. Then times `lint --static -f json`
`--repeat` times and prints wall and CPU time (min and median), the number of CE105 findings and
how many near-copies were written. The aim (issue 25) is under 10 s for 500 tasks.

Usage: python bench/lint.py [--tasks 500] [--repeat 3] [--cli PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

DEFAULT_CLI = str(Path(sys.executable).with_name("coder-eval"))
AIM_SECONDS = 10.0
WORDS = [
    "write",
    "read",
    "parse",
    "the",
    "a",
    "of",
    "file",
    "test",
    "csv",
    "json",
    "sum",
    "column",
    "print",
    "numbers",
    "list",
    "sort",
    "count",
    "lines",
    "words",
    "report",
    "table",
    "output",
    "input",
    "create",
    "update",
    "function",
    "class",
    "module",
    "script",
    "return",
    "value",
]


def write_suite(root: Path, tasks: int, seed: int = 25) -> int:
    """The task files; returns how many are near-copies of an earlier one."""
    rng = random.Random(seed)
    prompts: list[str] = []
    copies = 0
    for n in range(tasks):
        if prompts and rng.random() < 0.1:
            text = list(rng.choice(prompts))
            text[rng.randrange(len(text))] = "x"  # one character changed: well above the threshold
            prompt, copies = "".join(text), copies + 1
        else:
            prompt = " ".join(rng.choices(WORDS, k=rng.randint(40, 80)))
        prompts.append(prompt)
        task = {
            "task_id": f"t{n:04d}",
            "description": f"generated task {n}",
            "initial_prompt": prompt,
            "agent": {"type": "none"},
            "success_criteria": [
                {"type": "file_exists", "path": "out.txt", "description": "out.txt exists"},
                {"type": "run_command", "command": "python check.py", "description": "checks"},
            ],
        }
        (root / f"t{n:04d}.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
    return copies


def time_lint(cli: str, root: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the child, CE105 findings) of one `lint --static` call."""
    before = os.times()
    started = time.perf_counter()
    proc = subprocess.run(
        [cli, "lint", "--static", "-f", "json", str(root)], capture_output=True, text=True, timeout=1800
    )
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if proc.returncode not in (0, 1):
        sys.exit(f"lint exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    report = json.loads(proc.stdout)
    findings = report["findings"] if isinstance(report, dict) else report
    return wall, cpu, sum(1 for f in findings if f.get("rule_id") == "CE105")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", default=DEFAULT_CLI)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-lint-") as tmp:
        root = Path(tmp)
        copies = write_suite(root, args.tasks)
        runs = [time_lint(args.cli, root) for _ in range(args.repeat)]
    walls, cpus, found = [r[0] for r in runs], [r[1] for r in runs], runs[0][2]
    print(f"lint --static over {args.tasks} tasks ({copies} near-copies written), {args.repeat} calls of {args.cli}")
    print(f"  wall: min {min(walls):.2f} s, median {statistics.median(walls):.2f} s (aim: under {AIM_SECONDS:.0f} s)")
    print(f"  CPU:  min {min(cpus):.2f} s, median {statistics.median(cpus):.2f} s")
    print(f"  CE105 findings: {found}")


if __name__ == "__main__":
    main()
