"""Run the installed coder-eval CLI as a subprocess, bounded by a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).with_name("coder-eval")


def cli(
    *args: str | Path, cwd: Path, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`env` entries override the inherited environment; an empty value removes the variable."""
    merged = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})}
    env = {k: v for k, v in merged.items() if v != ""}
    return subprocess.run(
        [str(BIN), *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
