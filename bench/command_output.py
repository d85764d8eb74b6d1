"""The per-command cost of `run_process` (every hook, criterion and set-up command goes through it).

Runs, in this process, N times each:

- `true`                      (the floor: start, wait, collect nothing);
- `echo hello`                (a line of output);
- `head -c 1M /dev/zero`      (1 MiB of output: the cap is 100 KiB, so most is cut);
- `(sleep 30 &) ; echo bg`    (a daemon that keeps the output open: must not hold the call, timed
                               separately, its group killed after each call);

and prints the median and 90th-percentile wall time per call in milliseconds, plus, for a 64 MiB
flood, the peak disk space the call's spool files held in TMPDIR while it ran (sampled every
50 ms). Pass `--src DIR` to measure another checkout's `src/`: for a before/after comparison on
one machine, run it against both trees, alternately, a few times.

    git archive main src | tar -x -C /tmp/before
    python bench/command_output.py --src /tmp/before/src; python bench/command_output.py

Usage: python bench/command_output.py [--n 300] [--src PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {
    "true": "true",
    "echo": "echo hello",
    "1 MiB of output": "head -c 1048576 /dev/zero",
    "background daemon": "(sleep 30 >/dev/null 2>&1 &) ; (sleep 30 &) ; echo bg",
}


def _spooled_bytes(root: Path) -> int:
    """Disk blocks held by this process's open files under `root` (temporary files are unlinked at
    once, so they are found through /proc/self/fd rather than by walking the directory)."""
    total = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith(str(root)):
                total += os.fstat(int(fd)).st_blocks * 512
        except OSError:
            pass
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    from coder_eval.common import process

    print(f"run_process from {Path(process.__file__).resolve()}")
    cwd = Path(tempfile.mkdtemp(prefix="bench-cmd-"))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    try:
        for label, command in COMMANDS.items():
            times = []
            n = args.n if "daemon" not in label else max(20, args.n // 10)
            for _ in range(n):
                start = time.perf_counter()
                process.run_process(shell=command, cwd=cwd, env=env, timeout=60)
                times.append((time.perf_counter() - start) * 1000)
            times.sort()
            p90 = times[int(len(times) * 0.9) - 1]
            print(f"{label:>20}: median {statistics.median(times):6.2f} ms, p90 {p90:6.2f} ms  ({n} calls)")
        scratch = Path(tempfile.mkdtemp(prefix="bench-tmp-"))
        os.environ["TMPDIR"] = str(scratch)
        tempfile.tempdir = None  # pick the new TMPDIR up
        flood = "head -c 67108864 /dev/zero; sleep 0.5"
        peak = 0
        import threading

        stop = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not stop.is_set():
                peak = max(peak, _spooled_bytes(scratch))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        start = time.perf_counter()
        result = process.run_process(shell=flood, cwd=cwd, env=env, timeout=60)
        wall = time.perf_counter() - start
        stop.set()
        sampler.join()
        print(
            f"{'64 MiB flood':>20}: {wall * 1000:6.0f} ms, kept {len(result.stdout)} chars, "
            f"cut {result.stdout_truncated} bytes, peak on disk in TMPDIR {peak / 1048576:.1f} MiB"
        )
        shutil.rmtree(scratch, ignore_errors=True)
    finally:
        shutil.rmtree(cwd, ignore_errors=True)


if __name__ == "__main__":
    main()
