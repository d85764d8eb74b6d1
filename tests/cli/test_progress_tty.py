"""The progress display on a real pseudo-terminal: a Rich bar with ETA, counts and running units.

`coder-eval run` is started under a pty (so its console is a terminal) on the `init` starter,
and its output is fed to a terminal emulator (pyte). A screen taken while units run must show
the bar, the ETA, the counts and the running units with their arm; the plain lines are what
every other test of `run` reads. With CODER_EVAL_WRITE_CAPTURE=1 the test also writes that
screen into README.md between the progress-capture markers (how the README's picture is made).
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coder_eval.agents.claude_code.options import bundled_cli

pyte = pytest.importorskip("pyte")

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).with_name("coder-eval")
COLUMNS, LINES = 110, 24
BEGIN, END = "<!-- progress-capture:start -->", "<!-- progress-capture:end -->"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here"),
]


def _screen_text(screen: object) -> str:
    lines = [line.rstrip() for line in screen.display]  # type: ignore[attr-defined]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def run_under_pty(argv: list[str], cwd: Path, timeout: float = 600) -> tuple[int, list[str], str]:
    """Run `argv` on a pty; (exit code, screens taken while units ran, the final screen)."""
    screen = pyte.Screen(COLUMNS, LINES)
    stream = pyte.ByteStream(screen)
    main, child = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k not in ("NO_COLOR", "API_BACKEND")}
    env.update(COLUMNS=str(COLUMNS), LINES=str(LINES), TERM="xterm-256color")
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=child, stdout=child, stderr=child, start_new_session=True)
    os.close(child)
    live: list[str] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.5)
            if ready:
                try:
                    data = os.read(main, 65536)
                except OSError:
                    break
                if not data:
                    break
                stream.feed(data)
                if select.select([main], [], [], 0.05)[0]:
                    continue  # more is coming: a screen taken now could catch a redraw half done
                text = _screen_text(screen)
                if "ETA" in text and "running" in text:
                    live.append(text)
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait(timeout=30)
        os.close(main)
    return code, live, _screen_text(screen)


def test_the_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    subprocess.run([str(BIN), "init", str(tmp_path)], check=True, capture_output=True, timeout=60)
    argv = [str(BIN), "run", "tasks/", "-e", "experiments/skill-ab.yaml", "-b", "script", "-j", "3"]
    argv += ["--sample", "2", "--run-dir", "runs/tty"]
    code, live, final = run_under_pty(argv, tmp_path)
    assert code == 0, final
    assert live, f"no screen showed the bar while units ran:\n{final}"
    # a screen from the middle of the run: units still running below the bar, some finished above it
    shot = max(live, key=lambda s: (min(s.count("running"), 3), -abs(s.count("SUCCESS") - 4)))
    assert re.search(r"units .*\d+/8 .*succeeded.*failed.*errors.*ETA", shot), shot
    assert re.search(r"running\s+(with|without)-skill/greet/", shot), shot
    assert "8 run: 8 succeeded" in final and "experiment: " in final, final
    assert "\x1b" not in final  # the emulator consumed every escape sequence: nothing leaks as text
    if os.environ.get("CODER_EVAL_WRITE_CAPTURE") == "1":
        write_capture(shot)
    assert_readme_has_a_capture()


def write_capture(shot: str) -> None:
    readme = REPO / "README.md"
    text = readme.read_text(encoding="utf-8")
    command = "$ coder-eval run tasks/ -e experiments/skill-ab.yaml -b script -j 3 --sample 2"
    block = f"{BEGIN}\n```text\n{command}\n{shot}\n```\n{END}"
    readme.write_text(re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S))


def assert_readme_has_a_capture() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(re.escape(BEGIN) + "(.*?)" + re.escape(END), text, flags=re.S)
    assert match, "README.md has no progress capture (run this test with CODER_EVAL_WRITE_CAPTURE=1)"
    assert "ETA" in match.group(1) and "running" in match.group(1)
