"""Where the shared conformance corpus lives relative to this checkout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def conformance_dir() -> Path:
    override = os.environ.get("CODER_EVAL_CONFORMANCE")
    path = Path(override) if override else Path(__file__).resolve().parents[3] / "shared" / "conformance"
    if not path.is_dir():
        pytest.skip("../shared/conformance is not beside this checkout")
    return path
