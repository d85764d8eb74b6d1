"""`plan` and `run` name a docker task's missing daemon before any unit starts."""

from __future__ import annotations

import pytest

from coder_eval.engine import unit_checks


def test_docker_without_daemon_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    unit_checks._driver_missing.cache_clear()
    monkeypatch.setattr("coder_eval.sandbox.docker.docker_available", lambda: False)
    try:
        why = unit_checks._driver_missing("docker")
    finally:
        unit_checks._driver_missing.cache_clear()
    assert why is not None and "daemon is not running" in why
