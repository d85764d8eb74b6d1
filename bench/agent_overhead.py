"""Harness overhead around a real agent: task wall minus agent-process wall, as a share of the latter.

Generates a suite of 20 small `claude-code` tasks in a temporary directory, each with a script
beside it (write one or two files, run one shell command), and runs it through the CLI on the
scripted model: `coder-eval run TASKS -b script -j 2`. The real Claude Code binary (the one the
claude-agent-sdk wheel ships) does the work; no key, no network.

From every task.json:

- agent wall   = the sum of its turns' `duration_seconds` (`iterations[]`): the agent process
                 from the first event the harness sends it to its result;
- harness wall = its `duration_seconds`: sandbox, pre_run, agent, grading, post_run, up to
                 the moment the record is built.

Overhead is harness wall minus agent wall; the share is taken of the agent wall (aim: < 10%).
The task.log timestamps split the overhead into phases: sandbox setup (start → "sandbox
ready"), agent launch (→ "agent ... started": reference staging, pre_run, gateway route,
agent start-up), and wrap-up ("agent ended" → "final status": stopping the CLI and removing
its private HOME, gateway accounting, grading, post_run, moving the sandbox to artifacts/ and
building the record). Writing task.json happens after the clock stops and is not counted.

PYTHONDONTWRITEBYTECODE is removed from the child environment so the CLI starts with bytecode
caches as on a user's machine, and a 2-task warm-up run goes first (bytecode, page cache for
the 400 MB CLI binary) unless --no-warmup. Stdlib and PyYAML only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

TARGET_SHARE = 0.10
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


def write_suite(root: Path, count: int) -> Path:
    """`count` task directories under root/tasks, each with task.yaml and task.script.yaml."""
    tasks = root / "tasks"
    for i in range(count):
        word = WORDS[i % len(WORDS)]
        two_files = i % 2 == 1
        steps: list[dict[str, object]] = [{"write_file": {"path": "a.txt", "content": f"{word} one\n"}}]
        files = ["a.txt"]
        if two_files:
            steps.append({"write_file": {"path": "b.txt", "content": f"{word} two\n"}})
            files.append("b.txt")
        steps.append({"run_command": f"wc -w {' '.join(files)}"})
        task = {
            "task_id": f"overhead-{i:02d}",
            "description": "agent overhead benchmark task",
            "tags": ["bench"],
            "initial_prompt": f"Write {' and '.join(files)} containing the word {word}, then count their words.",
            "agent": {
                "type": "claude-code",
                "permission_mode": "acceptEdits",
                "allowed_tools": ["Write", "Bash"],
                "setting_sources": [],
            },
            "success_criteria": [{"type": "file_exists", "path": f, "description": f"{f} exists"} for f in files]
            + [
                {"type": "file_contains", "path": "a.txt", "includes": [word], "description": "a.txt has the word"},
                {"type": "run_command", "command": f"grep -q {word} a.txt", "description": "grep finds it"},
                {
                    "type": "command_executed",
                    "tool_name": "Bash",
                    "command_pattern": "wc -w",
                    "description": "the agent counted the words",
                },
            ],
        }
        script = {"steps": steps, "final_reply": "Done."}
        folder = tasks / f"t{i:02d}"
        folder.mkdir(parents=True)
        (folder / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
        (folder / "task.script.yaml").write_text(yaml.safe_dump(script, sort_keys=False), encoding="utf-8")
    return tasks


def run_suite(cli: str, tasks: Path, run_dir: Path, env: dict[str, str], parallel: int) -> float:
    """Run the suite through the CLI; its wall clock in seconds (exits on a failed run)."""
    start = time.perf_counter()
    proc = subprocess.run(
        [cli, "run", str(tasks), "-b", "script", "-j", str(parallel), "--run-dir", str(run_dir)],
        env=env,
        cwd=run_dir.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"the scripted suite did not pass (exit {proc.returncode}):\n{proc.stdout[-3000:]}")
    return wall


@dataclass
class Unit:
    task_id: str
    start: datetime
    task_wall: float
    agent_wall: float
    setup: float | None
    launch: float | None
    agent_log: float | None
    wrap_up: float | None

    @property
    def overhead(self) -> float:
        return self.task_wall - self.agent_wall

    @property
    def end(self) -> datetime:
        return self.start + timedelta(seconds=self.task_wall)


def _log_times(log: Path, start: datetime) -> dict[str, datetime]:
    """Wall-clock time of the first task.log line that starts with each marker."""
    markers = {"sandbox ready": "ready", "agent ended": "ended", "final status": "final"}
    found: dict[str, datetime] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        stamp, _, message = line.partition(" ")
        try:
            clock = datetime.strptime(stamp, "%H:%M:%S.%f").time()
        except ValueError:
            continue
        when = datetime.combine(start.date(), clock, tzinfo=UTC)
        if when < start - timedelta(hours=12):  # the run crossed midnight
            when += timedelta(days=1)
        key = next((v for k, v in markers.items() if message.startswith(k)), None)
        if key is None and message.startswith("agent ") and message.split(" (")[0].endswith(" started"):
            key = "started"
        if key is not None and key not in found:
            found[key] = when
    return found


def _span(times: dict[str, datetime], a: str, b: str) -> float | None:
    if a in times and b in times:
        return (times[b] - times[a]).total_seconds()
    return None


def read_units(run_dir: Path) -> list[Unit]:
    units = []
    for path in sorted(run_dir.rglob("task.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("final_status") != "SUCCESS":
            sys.exit(f"{data.get('task_id')} ended {data.get('final_status')}: {data.get('error_message')}")
        start = datetime.fromisoformat(data["started_at"].replace("Z", "+00:00"))
        times = _log_times(path.with_name("task.log"), start)
        times["begin"] = start
        units.append(
            Unit(
                task_id=data["task_id"],
                start=start,
                task_wall=float(data["duration_seconds"]),
                agent_wall=sum(float(t.get("duration_seconds") or 0.0) for t in data.get("iterations", [])),
                setup=_span(times, "begin", "ready"),
                launch=_span(times, "ready", "started"),
                agent_log=_span(times, "started", "ended"),
                wrap_up=_span(times, "ended", "final"),
            )
        )
    return units


def _phase(units: list[Unit], name: str) -> tuple[float, float]:
    values = [v for u in units if (v := getattr(u, name)) is not None]
    return (sum(values), statistics.median(values) * 1000) if values else (float("nan"), float("nan"))


def report(units: list[Unit], run_wall: float, parallel: int) -> None:
    task_wall = sum(u.task_wall for u in units)
    agent_wall = sum(u.agent_wall for u in units)
    overhead = task_wall - agent_wall
    share = overhead / agent_wall if agent_wall else float("nan")
    span = (max(u.end for u in units) - min(u.start for u in units)).total_seconds()
    print(f"{len(units)} scripted claude-code tasks, -j {parallel}")
    print(f"  run wall clock                 {run_wall:8.2f} s")
    print(f"    first task start to last end {span:8.2f} s  (the rest: CLI start-up, loading, gateway, run.json)")
    print(f"  summed task wall (harness)     {task_wall:8.2f} s")
    print(f"  summed agent wall (turns)      {agent_wall:8.2f} s")
    print(f"  overhead                       {overhead:8.2f} s  = {share:.1%} of agent wall (aim < {TARGET_SHARE:.0%})")
    print(f"  median per-task overhead       {statistics.median(u.overhead for u in units) * 1000:8.0f} ms")
    print("  where the overhead goes (from task.log)      total   median/task")
    labels = {
        "setup": "sandbox setup",
        "launch": "agent launch (reference, pre_run, route, start)",
        "wrap_up": "wrap-up (stop CLI, accounting, grading, artifacts, record)",
    }
    for name, label in labels.items():
        total, median_ms = _phase(units, name)
        print(f"    {label:<58} {total:6.2f} s {median_ms:7.0f} ms")
    logged_agent, _ = _phase(units, "agent_log")
    print(f"    {'agent (task.log start to end; cross-check of the turns)':<58} {logged_agent:6.2f} s")
    worst = max(units, key=lambda u: u.overhead)
    phase, seconds = max(((labels[n].split(" (")[0], getattr(worst, n) or 0.0) for n in labels), key=lambda p: p[1])
    first = worst.start <= sorted(u.start for u in units)[min(parallel, len(units)) - 1]
    print(
        f"  largest per-task overhead: {worst.task_id}, {worst.overhead * 1000:.0f} ms, "
        f"{seconds * 1000:.0f} ms of it in {phase}"
        + (" (a first unit: one-time start-up work of the CLI process)" if first else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("-j", "--parallel", type=int, default=2)
    parser.add_argument("--no-warmup", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory and print it")
    args = parser.parse_args()
    cli = str(Path(sys.executable).with_name("coder-eval"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("API_BACKEND", None)
    tmp = tempfile.mkdtemp(prefix="coder-eval-agent-overhead-")
    root = Path(tmp)
    try:
        if not args.no_warmup:
            warm = write_suite(root / "warm", 2)
            run_suite(cli, warm, root / "warm" / "run", env, args.parallel)
        tasks = write_suite(root / "bench", args.tasks)
        run_dir = root / "bench" / "run"
        run_wall = run_suite(cli, tasks, run_dir, env, args.parallel)
        report(read_units(run_dir), run_wall, args.parallel)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            import shutil

            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
