"""Helpers for the end-to-end tests of CLI-driven agents (codex, opencode, ...): which are here.

Locally a kind whose binary is missing is skipped; in CI (`CI=true`) it is a failure, since CI
installs every agent it tests (`pip install .[codex]`, `coder-eval agents install opencode`).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from coder_eval.agents.registry import AGENTS

CLI_KINDS = ("codex", "opencode")
"""The kinds these tests drive; a new agent joins by adding its name here."""


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_binary(kind: str) -> str:
    """The kind's binary, or a skip (locally) / failure (in CI) naming how to install it."""
    declared = AGENTS.get(kind)
    assert declared.binary is not None
    found = declared.binary.locate()
    if found is None:
        message = f"{kind}: {declared.binary.name} not found; install: {declared.binary.install}"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return found


def kind_params() -> list[Any]:
    return [pytest.param(kind, id=kind) for kind in CLI_KINDS]
