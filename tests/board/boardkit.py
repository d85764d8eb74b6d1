"""Helpers of the board tests: the CLI as a subprocess, a board server, Chromium under Playwright."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "corpus"
BIN = Path(sys.executable).with_name("coder-eval")
SECRET = "board-test-secret-4711"


def coder_eval(*args: str | Path, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN.parent}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    return subprocess.run(
        [str(BIN), *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@dataclass(frozen=True)
class Runs:
    root: Path
    secret: Path

    @property
    def base(self) -> Path:
        return self.root / "01-base"


@dataclass
class Server:
    url: str
    port: int
    process: subprocess.Popen[str]


def start_board(*args: str | Path, cwd: Path) -> Server:
    """`coder-eval board ARGS --port 0` in the background; returns once it prints its address."""
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [str(BIN), "board", *map(str, args), "--port", "0"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
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


CHROMIUM = Path(os.environ.get("BOARD_CHROMIUM", "/usr/bin/chromium"))
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
SCREENSHOTS = os.environ.get("BOARD_SCREENSHOTS")
"""When set, the browser tests save a PNG of each page here (docs/board/ is made this way)."""


def require_chromium() -> Path:
    """The browser, or a skip outside CI; in CI (CI=true) a missing browser is a failure."""
    if CHROMIUM.is_file():
        return CHROMIUM
    message = f"{CHROMIUM} is missing: `apt-get install chromium` (.ci/run does this)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


def screenshot(page: object, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]


class Tab:
    """A page that records script errors and CSP violations; tests assert there were none."""

    def __init__(self, browser: object, base: str) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        self.base = base
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))

    def open(self, hash_path: str, ready: str) -> object:
        self.page.goto(self.base + hash_path)
        self.page.wait_for_selector(ready, timeout=15000)
        return self.page

    def close(self) -> None:
        self.page.close()
        assert self.errors == []
