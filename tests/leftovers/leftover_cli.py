"""Run the CLI as a subprocess for the end-to-end checks of the smaller user-facing features."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("API_BACKEND", "LOG_LEVEL", "LOG_TO_FILE")}
    full["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{full.get('PATH', '')}"
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "coder_eval", *map(str, args)],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
