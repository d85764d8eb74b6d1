"""Real runs for the board tests: the scripted Claude Code plays small task sets into one runs/ folder.

- `01-base`: greet passes, fixme fails, an XSS probe, a three-row classification suite;
- `02-head`: the same tasks with a planted regression (greet) and a fix (fixme);
- `03-exp`: a two-arm experiment with two replicates.
Around them: an empty directory and a `latest` link (neither is a run), and a symlink inside
01-base that points at a secret outside the runs folder.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from boardkit import CORPUS, FLAGS, SECRET, Runs, Server, coder_eval, require_chromium, start_board, stop_board


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


@pytest.fixture(scope="session")
def board(runs: Runs) -> Iterator[Server]:
    server = start_board(runs.root, cwd=runs.root.parent)
    yield server
    stop_board(server)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Chromium under Playwright (Debian's /usr/bin/chromium), shared by one module's browser tests.

    Module scope, not session: Playwright's sync API keeps an event loop running in the main
    thread while it is open, and every later test that calls `asyncio.run` would fail on it.
    """
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = require_chromium()
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(chromium), args=FLAGS)
        yield b
        b.close()
