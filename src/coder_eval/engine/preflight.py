"""Environment checks for `plan`: agent binaries, uv and sandbox drivers. Warnings only.

Everything about an agent kind comes from its declaration (`AgentKind`): which binary it runs and
how to find it. Credentials are a unit's route (`route_check.py`): a missing one refuses the unit.
"""

from __future__ import annotations

import shutil

from coder_eval.agents.kind import AgentKind
from coder_eval.agents.registry import agent_kind
from coder_eval.models.registry import UnknownKindError
from coder_eval.models.task import TaskDefinition
from coder_eval.sandbox.drivers import DRIVERS


def _kind_warnings(kind: AgentKind, tasks: list[TaskDefinition]) -> list[str]:
    warnings: list[str] = []
    if not kind.has_implementation:
        warnings.append(f"agent type {kind.name!r} validates, but this version of Coder Eval cannot run it yet")
    if kind.binary is not None and kind.binary.locate() is None:
        hint = f"; install: {kind.binary.install}" if kind.binary.install else ""
        warnings.append(f"{kind.binary.name!r} is not on PATH (needed by agent type {kind.name!r}){hint}")
    return warnings


def environment_warnings(tasks: list[TaskDefinition]) -> list[str]:
    """One warning per distinct missing tool, credential or driver across all tasks."""
    warnings: list[str] = []
    for name in sorted({t.agent_type or "claude-code" for t in tasks}):
        try:
            warnings.extend(_kind_warnings(agent_kind(name), tasks))
        except UnknownKindError as exc:
            warnings.append(str(exc))
    if any(t.sandbox.python is not None and t.sandbox.python.env_packages for t in tasks) and not shutil.which("uv"):
        warnings.append("'uv' is not on PATH; tasks with python env_packages need it (pip install uv)")
    for driver in sorted({t.sandbox.driver for t in tasks}):
        if driver not in DRIVERS:
            known = ", ".join(DRIVERS.names())
            warnings.append(
                f"sandbox driver {driver!r} is not available here (available: {known}); its tasks will end ERROR"
            )
    from coder_eval.sandbox.auto import fallback_warning

    fallback = fallback_warning({t.sandbox.driver for t in tasks})
    if fallback is not None:
        warnings.append(fallback)
    warnings.extend(_unenforced_limits(tasks, on_tempdir=fallback is not None))
    return warnings


def _unenforced_limits(tasks: list[TaskDefinition], *, on_tempdir: bool) -> list[str]:
    """Limits a task sets that its driver will not enforce: said before the run, never pretended."""
    out = []
    for task in tasks:
        driver = task.sandbox.driver
        if driver == "bubblewrap" or (driver == "auto" and not on_tempdir):
            from coder_eval.sandbox.unit_limits import unenforced

            out += [f"task {task.task_id!r}: {note}" for note in unenforced(task.sandbox.limits)]
        if driver == "tempdir" or (driver == "auto" and on_tempdir):
            names = task.sandbox.limits.set_by_task()
            if names:
                out.append(
                    f"task {task.task_id!r} sets sandbox.limits {', '.join(names)}, which the tempdir driver does not "
                    "enforce (only run_limits.task_timeout and limits.timeout bind there); use bubblewrap or docker"
                )
            if task.sandbox.network in ("none", "allowlist"):
                out.append(
                    f"task {task.task_id!r} sets sandbox.network {task.sandbox.network}, which the tempdir driver "
                    "cannot hold (its commands have the host's network); use bubblewrap or docker"
                )
    return out
