"""Board latency on a synthetic 10,000-row run, measured in Chromium.

Writes a run directory with N task records and a run.json (synthetic rows: no tasks are run),
starts `coder-eval board` on it, and drives Debian's Chromium through Playwright:

- first paint: from navigation to the run page until the task table shows rows (cold = the
  server parses run.json for the first time; warm = served from its cache);
- filter: from typing into the task filter until the table shows the filtered rows (the first
  filter also waits for the background load of every row; later ones filter in memory).

"first paint" and "filter" are wall-clock times seen by the Playwright driver (they include its
round trips); the indented "in page" lines are the browser's own clock: when the table's first
draw finished, counted from the start of navigation, and how long one filter-and-draw took.

    .venv/bin/python bench/board.py [--rows 10000] [--repeat 5] [--keep DIR]

Prints milliseconds (median and max over the repeats). Exit status 0 when every step ran.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from coder_eval.models.results import CriterionResult, EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import TokenUsage
from coder_eval.records.layout import replicate_dir
from coder_eval.records.store import write_run_summary, write_task_result
from coder_eval.records.summary import build_run_summary

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
STATUSES = [FinalStatus.SUCCESS] * 6 + [FinalStatus.FAILURE] * 3 + [FinalStatus.ERROR]


def synthetic_result(i: int, start: datetime, rng: random.Random) -> EvaluationResult:
    status = rng.choice(STATUSES)
    score = 1.0 if status is FinalStatus.SUCCESS else (None if status is FinalStatus.ERROR else rng.random() * 0.8)
    return EvaluationResult(
        task_id=f"suite-{i // 100:03d}/task-{i:05d}",
        variant_id="default",
        tags=["synthetic", f"group-{i % 7}"],
        agent_type="claude-code",
        model_used="scripted",
        started_at=start + timedelta(seconds=i),
        completed_at=start + timedelta(seconds=i + 3),
        duration_seconds=rng.uniform(0.5, 30.0),
        final_status=status,
        weighted_score=score,
        iteration_count=rng.randint(1, 4),
        success_criteria_results=[CriterionResult(criterion_type="file_exists", score=score or 0.0, description="x")],
        total_token_usage=TokenUsage(
            uncached_input_tokens=rng.randint(1000, 90000),
            output_tokens=rng.randint(10, 4000),
            total_cost_usd=rng.uniform(0.001, 0.2),
        ),
        error_message="synthetic infrastructure error" if status is FinalStatus.ERROR else None,
    )


def write_synthetic_run(run_dir: Path, rows: int, *, seed: int = 7) -> None:
    """A run directory shaped like a real one: task.json per replicate, then run.json."""
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    results = [synthetic_result(i, start, rng) for i in range(rows)]
    for r in results:
        write_task_result(replicate_dir(run_dir, r.variant_id, r.task_id, r.replicate_index), r)
    write_run_summary(run_dir, build_run_summary(run_dir.name, results, start_time=start))


def start_board(root: Path) -> tuple[subprocess.Popen[str], str]:
    exe = Path(sys.executable).with_name("coder-eval")
    proc = subprocess.Popen(
        [str(exe), "board", str(root), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    timer = threading.Timer(60, proc.kill)
    timer.start()
    line = proc.stdout.readline()
    timer.cancel()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not match:
        proc.kill()
        raise SystemExit(f"board did not start: {line}")
    return proc, match.group(0)


def measure(url: str, run_id: str, rows: int, repeat: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {
        "first paint (cold)": [],
        "first paint (warm)": [],
        "  in page (cold)": [],
        "  in page (warm)": [],
        "first filter": [],
        "filter": [],
        "  filter+draw in page": [],
    }
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for attempt in range(repeat):
            page = browser.new_page()
            t0 = time.perf_counter()
            page.goto(f"{url}#/runs/{run_id}")
            page.wait_for_selector("#tasks tbody tr")
            paint = (time.perf_counter() - t0) * 1000
            out["first paint (cold)" if attempt == 0 else "first paint (warm)"].append(paint)
            # When the table's first draw finished, in ms since the navigation started (the page's own clock).
            out["  in page (cold)" if attempt == 0 else "  in page (warm)"].append(page.evaluate("Board.lastDraw.at"))
            for n, term in enumerate(["task-0420", "suite-07", "infrastructure", "task-09999"]):
                before = page.inner_text("#row-count")
                t0 = time.perf_counter()
                page.fill("#task-filter", term)
                page.wait_for_function(
                    "(b) => { const c = document.querySelector('#row-count').innerText;"
                    " return c !== b && !c.startsWith('loading'); }",
                    arg=before,
                )
                out["first filter" if n == 0 else "filter"].append((time.perf_counter() - t0) * 1000)
                out["  filter+draw in page"].append(page.evaluate("Board.lastDraw.ms"))
            total = page.inner_text("#row-count")
            if f"({rows:,} in run)" not in total:
                raise SystemExit(f"the table did not load every row: {total}")
            page.close()
        browser.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the synthetic run here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        run_dir = root / "synthetic"
        t0 = time.perf_counter()
        write_synthetic_run(run_dir, args.rows)
        size = (run_dir / "run.json").stat().st_size
        print(f"wrote {args.rows:,} task records and run.json ({size / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f}s")
        proc, url = start_board(root)
        try:
            figures = measure(url, run_dir.name, args.rows, args.repeat)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print(f"{'step':<22}{'median ms':>12}{'max ms':>10}  n")
    for name, values in figures.items():
        if not values:
            continue
        print(f"{name:<22}{statistics.median(values):>12.0f}{max(values):>10.0f}  {len(values)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
