"""The short commands (`plan`, `aggregate`, `report -f md`, `report -f junit`), compared and split.

Makes one agentless 1,000-row run (as `bench/scale.py` does), then:

- times each command with every `coder-eval` given (`--cli`, default: the one beside this
  Python), interleaved so a shared machine's load falls on all of them alike, and prints wall
  and CPU (user + sys, children included), min and median of `--repeat` calls, beside the aims;
- with `--split`, prints where the CPU of each command goes, step by step, measured inside one
  Python process that does what the command does (with the collector paused, as the commands
  run), median of five.

To compare with an older tree, install it in its own virtual environment and pass both:
    python bench/short_commands.py --cli /old/.venv/bin/coder-eval --cli .venv/bin/coder-eval
Usage: python bench/short_commands.py [--rows 1000] [--repeat 15] [--cli PATH ...] [--split]
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import PLAN_AIM, REPORT_AIM, write_task

DEFAULT_CLI = str(Path(sys.executable).with_name("coder-eval"))

SPLIT_CHILD = r"""
import gc, json, sys, time
from pathlib import Path

laps: dict[str, float] = {}
last = [time.process_time()]


def lap(name):
    now = time.process_time()
    laps[name] = laps.get(name, 0.0) + now - last[0]
    last[0] = now


import typer, coder_eval.cli.app
lap("Typer and the CLI modules")
import typer._adapters, pydantic
from pydantic import BaseModel, Field, TypeAdapter
lap("pydantic")
kind, target = sys.argv[1], Path(sys.argv[2])
gc.disable()
if kind == "plan":
    from coder_eval.engine import validation
    lap("models and loaders, importing")
    from coder_eval.engine.preflight import environment_warnings
    from coder_eval.loading.loader import expand_dataset, validate_document
    from coder_eval.loading.static_checks import task_problems
    from coder_eval.loading.yaml_source import read_yaml
    raw, lines = read_yaml(target)
    lap("YAML parse and shape checks")
    task = validate_document(raw, target, lines)
    lap("task validation (builds its validator)")
    task_problems(task, target.parent.resolve())
    rows = expand_dataset(task, raw, target)
    lap("dataset rows")
    environment_warnings([rows[0].definition])
    lap("environment checks (bubblewrap probe)")
else:
    from coder_eval.common.secrets import Redactor
    from coder_eval.engine import report_files
    from coder_eval.records.layout import SUITE_JSON, TASK_JSON, find_run_files
    from coder_eval.records.store import read_run_summary, read_task_results
    lap("models and loaders, importing")
    found = find_run_files(target, TASK_JSON, SUITE_JSON)
    lap("finding the records (walk)")
    results, _ = read_task_results(target, [p for p in found if p.name == TASK_JSON])
    lap("reading and validating the records")
    summary = read_run_summary(target)
    lap("run.json (and suite.json) read")
    if kind == "aggregate":
        from coder_eval.records.summary import build_run_summary
        from coder_eval.reports.markdown import render_run_markdown
        summary = build_run_summary(target.name, results)
        texts = [summary.model_dump_json(indent=2), render_run_markdown(summary, results)]
    elif kind == "md":
        from coder_eval.reports.markdown import render_run_markdown
        texts = [render_run_markdown(summary, results)]
    else:
        gates = report_files.suite_gates_on_disk(target, [p for p in found if p.name == SUITE_JSON])
        lap("run.json (and suite.json) read")
        texts = [report_files.junit_text(target, summary, results, gates)]
    lap("builders and output text")
    redact = Redactor()
    for text in texts:
        redact(text)
    lap("redaction")
print(json.dumps(laps))
"""


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one call; exits when the call fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    errors = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{' '.join(args[:3])} failed: {errors.decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def commands(task: Path, run_dir: Path) -> list[tuple[str, list[str], float]]:
    return [
        ("plan (one task)", ["plan", "-q", str(task)], PLAN_AIM),
        ("aggregate", ["aggregate", str(run_dir)], REPORT_AIM),
        ("report -f md", ["report", str(run_dir), "-o", str(run_dir.parent / "r.md")], REPORT_AIM),
        ("report -f junit", ["report", str(run_dir), "-f", "junit", "-o", str(run_dir.parent / "r.xml")], REPORT_AIM),
        ("--version (floor)", ["--version"], 0.0),
    ]


def compare(clis: list[str], task: Path, run_dir: Path, repeat: int, env: dict[str, str]) -> None:
    cases = commands(task, run_dir)
    samples: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for cli in clis:  # bytecode and page cache
        for _, args, _ in cases:
            timed([cli, *args], env)
    for _ in range(repeat):
        for c, (_, args, _) in enumerate(cases):
            for i, cli in enumerate(clis):
                samples.setdefault((c, i), []).append(timed([cli, *args], env))
    for i, cli in enumerate(clis):
        print(f"[{i}] {cli}")
    print(f"\n{'command':<20} {'cli':>3} {'wall min':>9} {'wall med':>9} {'cpu min':>8} {'cpu med':>8} {'aim s':>6}")
    for c, (label, _, aim) in enumerate(cases):
        for i in range(len(clis)):
            walls = sorted(s[0] for s in samples[(c, i)])
            cpus = sorted(s[1] for s in samples[(c, i)])
            shown_aim = f"{aim:.2f}" if aim else "-"
            print(
                f"{label:<20} {i:>3} {walls[0]:>9.3f} {statistics.median(walls):>9.3f} "
                f"{cpus[0]:>8.3f} {statistics.median(cpus):>8.3f} {shown_aim:>6}"
            )


def split(task: Path, run_dir: Path, env: dict[str, str]) -> None:
    print("\nCPU ms per step (median of 5; interpreter start and exit not included)")
    for kind, target in [("plan", task), ("aggregate", run_dir), ("md", run_dir), ("junit", run_dir)]:
        runs = []
        for _ in range(5):
            out = subprocess.run(
                [sys.executable, "-c", SPLIT_CHILD, kind, str(target)],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            )
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        steps = " | ".join(f"{k}: {1000 * statistics.median(r[k] for r in runs):.0f}" for k in runs[0])
        total = 1000 * statistics.median(sum(r.values()) for r in runs)
        print(f"{kind}: {steps} | total {total:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--cli", action="append", help="a coder-eval executable to time (repeatable)")
    parser.add_argument("--split", action="store_true", help="also print the CPU split of each command")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "RAY_ADDRESS")}
    clis = args.cli or [DEFAULT_CLI]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        task = write_task(root / "task", args.rows)
        run_dir = root / "run"
        timed([clis[-1], "run", str(task), "-j", "2", "--run-dir", str(run_dir), "--driver", "tempdir"], env)
        compare(clis, task, run_dir, args.repeat, env)
        if args.split:
            split(task, run_dir, env)


if __name__ == "__main__":
    main()
