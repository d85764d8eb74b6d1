"""Command output is read from pipes into a bounded head and tail: no spool on disk, no hang, no SIGPIPE."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coder_eval.common.output_capture import Capture, pipes_draining
from coder_eval.common.process import run_process

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def _naive(data: bytes, cap: int) -> tuple[bytes, bytes, int]:
    if len(data) <= cap:
        return data, b"", 0
    head, tail = data[: cap // 2], data[len(data) - (cap - cap // 2) :]
    return head, tail, len(data) - len(head) - len(tail)


@pytest.mark.parametrize("cap", [0, 1, 2, 7, 100, 4096])
def test_capture_keeps_exactly_the_head_and_the_tail(cap: int) -> None:
    rng = random.Random(cap)
    for _ in range(50):
        data = bytes(rng.randrange(97, 123) for _ in range(rng.randrange(0, 3 * cap + 20)))
        capture = Capture(cap)
        pos = 0
        while pos < len(data):
            step = rng.randrange(1, max(2, cap + 3))
            capture.add(data[pos : pos + step])
            pos += step
        head, tail, cut = _naive(data, cap)
        text, counted = capture.text()
        assert counted == cut and capture.total == len(data)
        if cut:
            assert text == f"{head.decode()}\n... [truncated {cut} bytes] ...\n{tail.decode()}"
        else:
            assert text == data.decode()


def test_a_flood_is_cut_in_the_middle_and_counted(tmp_path: Path) -> None:
    script = "printf START; head -c 5000000 /dev/zero | tr '\\0' x; printf END; echo oops >&2"
    result = run_process(shell=script, cwd=tmp_path, env=ENV, timeout=60, output_limit=1000)
    assert result.exit_code == 0 and result.stdout.startswith("START") and result.stdout.endswith("END")
    assert result.stdout_truncated == 5_000_008 - 1000 and result.stderr == "oops\n"


def test_a_flood_writes_nothing_to_disk(tmp_path: Path) -> None:
    """Under a 1 MiB file-size limit a 64 MiB print still completes: it never lands in a file."""
    child = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))\n"
        "from pathlib import Path\n"
        "from coder_eval.common.process import run_process\n"
        "r = run_process(shell='head -c 67108864 /dev/zero', cwd=Path(sys.argv[1]), env={'PATH': '/usr/bin:/bin'},"
        " timeout=60)\n"
        "print(r.exit_code, r.stdout_truncated)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(tmp_path)], capture_output=True, text=True, timeout=120, check=True
    )
    code, cut = done.stdout.split()
    assert code == "0" and int(cut) == 64 * 1024 * 1024 - 100 * 1024


def test_a_background_writer_neither_holds_the_call_nor_dies_of_sigpipe(tmp_path: Path) -> None:
    pid_file = tmp_path / "daemon.pid"
    loop = f"echo $$ > {pid_file}.tmp && mv {pid_file}.tmp {pid_file}; while :; do echo tick; sleep 0.01; done"
    script = f"sh -c '{loop}' & echo started"
    start = time.monotonic()
    result = run_process(shell=script, cwd=tmp_path, env=ENV, timeout=30, keep_background=True)
    assert time.monotonic() - start < 5 and result.exit_code == 0 and "started" in result.stdout
    deadline = time.monotonic() + 5
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    pid = int(pid_file.read_text())
    try:
        time.sleep(1.0)  # far more than a pipe buffer's worth of ticks if nobody read them
        os.kill(pid, 0)  # still alive: its writes neither blocked it nor killed it
        assert Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        assert pipes_draining() >= 1
    finally:
        os.killpg(os.getpgid(pid), signal.SIGKILL)
    deadline = time.monotonic() + 5
    while pipes_draining() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pipes_draining() == 0, "a pipe stayed open after its last writer died"


def test_leftovers_are_killed_and_a_timeout_keeps_what_was_printed(tmp_path: Path) -> None:
    marker = f"4{os.getpid() % 1000:03d}.25"
    result = run_process(shell=f"echo before; sleep {marker} & echo bg; sleep 30", cwd=tmp_path, env=ENV, timeout=1)
    assert result.timed_out and result.exit_code is None and "before" in result.stdout
    time.sleep(0.2)
    alive = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p).endswith(f"sleep {marker}")]
    assert not alive


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def test_no_descriptor_leaks_across_many_calls(tmp_path: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(200):
        run_process(shell="echo x; echo y >&2", cwd=tmp_path, env=ENV, timeout=10)
    assert len(os.listdir("/proc/self/fd")) <= before + 2
