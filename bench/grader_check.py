"""`coder-eval flaky --regrade N`: what a re-grade of a recorded unit costs.

Runs one task (`--units` replicates, scripted Claude Code, the default sandbox driver) whose
criteria are a file check and a command, then times `flaky RUN --regrade N
--allow-recorded-commands` `--repeat` times (each time into a fresh copy of the run, so every
invocation grades the same number of copies) and prints the wall time, min and median, and the
time per re-grade. Every re-grade copies the unit's preserved workspace, adopts it in a fresh
environment of the task's driver and grades it; the task's shared Python environment is built
once per unit and reused by its later grades.

Usage: python bench/grader_check.py [--units 2] [--regrade 3] [--repeat 3] [--cli PATH]
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
from pathlib import Path

import yaml

DEFAULT_CLI = str(Path(sys.executable).with_name("coder-eval"))
TASK = {
    "task_id": "answer",
    "description": "write the answer",
    "initial_prompt": "Write the answer to out.txt.",
    "agent": {
        "type": "claude-code",
        "permission_mode": "acceptEdits",
        "allowed_tools": ["Write"],
        "setting_sources": [],
    },
    "success_criteria": [
        {"type": "file_contains", "path": "out.txt", "includes": ["forty-two"], "description": "right answer"},
        {"type": "run_command", "command": "test -s out.txt", "description": "not empty"},
    ],
}
SCRIPT = {"steps": [{"write_file": {"path": "out.txt", "content": "forty-two\n"}}, {"reply": "Done."}]}


def _cli(cli: str, *args: str | Path, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "API_BACKEND": "script"}
    return subprocess.run(
        [cli, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=2)
    parser.add_argument("--regrade", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", default=DEFAULT_CLI)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-grader-check-") as tmp:
        work = Path(tmp)
        (work / "answer.yaml").write_text(yaml.safe_dump(TASK, sort_keys=False), encoding="utf-8")
        (work / "answer.script.yaml").write_text(yaml.safe_dump(SCRIPT, sort_keys=False), encoding="utf-8")
        ran = _cli(
            args.cli, "run", "answer.yaml", "-b", "script", "--repeats", str(args.units), "--run-dir", "run", cwd=work
        )
        if ran.returncode != 0:
            sys.exit(f"the run failed:\n{ran.stdout}{ran.stderr}")
        walls = []
        for i in range(args.repeat):
            copy = work / f"run-{i}"
            shutil.copytree(work / "run", copy, symlinks=True)
            started = time.perf_counter()
            proc = _cli(args.cli, "flaky", copy, "--regrade", str(args.regrade), "--allow-recorded-commands", cwd=work)
            walls.append(time.perf_counter() - started)
            if proc.returncode != 0:
                sys.exit(f"flaky --regrade failed:\n{proc.stdout}{proc.stderr}")
        grades = args.units * args.regrade
        print(f"{args.units} unit(s) × {args.regrade} re-grade(s) = {grades} grades, {args.repeat} invocation(s)")
        print(f"wall: min {min(walls):.2f} s, median {statistics.median(walls):.2f} s")
        print(f"per re-grade (median): {statistics.median(walls) / grades:.2f} s")


if __name__ == "__main__":
    main()
