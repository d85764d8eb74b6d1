"""Launching Debian's Chromium under Playwright (no browser download is possible here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("BOARD_CHROMIUM", "/usr/bin/chromium"))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]
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
