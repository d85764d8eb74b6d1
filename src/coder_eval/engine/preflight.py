"""Environment warnings for `plan`: what may be fine but is worth knowing before a run.

What would make a unit fail (a missing agent binary, credential or sandbox driver) is not a
warning: `unit_checks.py` reports it as a problem, and `run` refuses on it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from coder_eval.models.task import TaskDefinition


def claude_login() -> str | None:
    """A cached Claude Code login, which the gateway cannot use: it forwards API keys only."""
    if os.environ.get("CLAUDE_CODE_OAUTH_TOKEN"):
        return "CLAUDE_CODE_OAUTH_TOKEN"
    path = Path.home() / ".claude" / ".credentials.json"
    return "~/.claude/.credentials.json" if path.is_file() else None


def environment_warnings(tasks: list[TaskDefinition]) -> list[str]:
    """One warning per distinct soft problem across all tasks (uv for env packages, the auto fallback)."""
    warnings: list[str] = []
    if any(t.sandbox.python is not None and t.sandbox.python.env_packages for t in tasks) and not shutil.which("uv"):
        warnings.append("'uv' is not on PATH; tasks with python env_packages need it (pip install uv)")
    from coder_eval.sandbox.auto import fallback_warning

    fallback = fallback_warning({t.sandbox.driver for t in tasks})
    if fallback is not None:
        warnings.append(fallback)
    return warnings
