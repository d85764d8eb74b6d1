"""A fresh Python for exported verifiers: test.sh installs the carried wheel into it, never into the dev venv."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

UV = Path(sys.executable).with_name("uv")


@pytest.fixture(scope="session")
def verifier_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded venv standing in for the task image's python3 (CODER_EVAL_PYTHON for test.sh)."""
    venv = tmp_path_factory.mktemp("image") / "venv"
    subprocess.run([str(UV), "venv", "-q", "--seed", str(venv), "--python", sys.executable], check=True, timeout=120)
    return venv / "bin" / "python"
