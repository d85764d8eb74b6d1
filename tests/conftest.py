"""Shared fixtures: the conformance corpus and small builders for sandboxes and specs."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# ../shared/conformance beside the checkout; CODER_EVAL_CONFORMANCE points elsewhere (a worktree, say).
CONFORMANCE = Path(os.environ.get("CODER_EVAL_CONFORMANCE") or REPO.parent / "shared" / "conformance")


@pytest.fixture
def conformance() -> Path:
    if not CONFORMANCE.is_dir():
        pytest.skip("../shared/conformance is not beside this checkout")
    return CONFORMANCE


@pytest.fixture
def sandbox(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write {relative path: content} into a fresh sandbox directory and return it."""

    def make(files: dict[str, str]) -> Path:
        root = tmp_path / "sandbox"
        root.mkdir(exist_ok=True)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        return root

    return make
