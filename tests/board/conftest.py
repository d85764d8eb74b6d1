"""Real runs for the board tests: the scripted Claude Code plays small task sets into one runs/ folder.

- `01-base`: greet passes, fixme fails, an XSS probe, a three-row classification suite;
- `02-head`: the same tasks with a planted regression (greet) and a fix (fixme);
- `03-exp`: a two-arm experiment with two replicates.
Around them: an empty directory and a `latest` link (neither is a run), and a symlink inside
01-base that points at a secret outside the runs folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "corpus"
BIN = Path(sys.executable).with_name("coder-eval")
SECRET = "board-test-secret-4711"


def coder_eval(*args: str | Path, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN.parent}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    return subprocess.run(
        [str(BIN), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@dataclass(frozen=True)
class Runs:
    root: Path
    secret: Path

    @property
    def base(self) -> Path:
        return self.root / "01-base"


def _run(*args: str | Path, cwd: Path) -> None:
    proc = coder_eval("run", *args, "-b", "script", "-j", "4", cwd=cwd)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    top = tmp_path_factory.mktemp("board")
    root = top / "runs"
    corpus = top / "corpus"
    shutil.copytree(CORPUS, corpus)
    _run("base", "shared", "--run-dir", root / "01-base", cwd=corpus)
    _run("head", "shared", "--run-dir", root / "02-head", cwd=corpus)
    _run("exp", "-e", "ab", "--run-dir", root / "03-exp", cwd=corpus)
    (root / "empty-dir").mkdir()
    (root / "latest").symlink_to("02-head")
    secret = top / "secret.txt"
    secret.write_text(SECRET)
    (root / "01-base" / "default" / "greet" / "00" / "artifacts" / "leak.txt").symlink_to(secret)
    return Runs(root, secret)


@dataclass
class Server:
    url: str
    port: int
    process: subprocess.Popen[str]


def start_board(*args: str | Path, cwd: Path) -> Server:
    """`coder-eval board ARGS --port 0` in the background; returns once it prints its address."""
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [str(BIN), "board", *map(str, args), "--port", "0"], cwd=cwd, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    watchdog = threading.Timer(60, proc.kill)  # readline must not wait forever on a hung start
    watchdog.start()
    try:
        line = proc.stdout.readline()
    finally:
        watchdog.cancel()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not match:
        proc.kill()
        proc.wait(timeout=10)
        raise AssertionError(f"board did not start: {line}{proc.stdout.read()}")
    return Server(match.group(0), int(match.group(1)), proc)


def stop_board(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=10)


@pytest.fixture(scope="session")
def board(runs: Runs) -> Iterator[Server]:
    server = start_board(runs.root, cwd=runs.root.parent)
    yield server
    stop_board(server)
