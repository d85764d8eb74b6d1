"""Environment warnings for `plan`: what may be fine but is worth knowing before a run.

What would make a unit fail (a missing agent binary, credential or sandbox driver) is not a
warning: `unit_checks.py` reports it as a problem (a unit's model route, `route_check.py`), and
`run` refuses on it.
"""

from __future__ import annotations

from coder_eval.models.task import TaskDefinition


def environment_warnings(tasks: list[TaskDefinition]) -> list[str]:
    """One warning per distinct soft problem across all tasks (uv for Python environments, the auto fallback)."""
    warnings: list[str] = []
    if any(t.sandbox.python is not None for t in tasks):
        from coder_eval.sandbox.environments import find_uv
        from coder_eval.sandbox.templates import SetupError

        try:
            find_uv()
        except SetupError:
            warnings.append("uv is not installed; every unit's Python environment needs it (pip install uv)")
    from coder_eval.sandbox.env_allowlist import withheld_credentials

    names = {name: None for t in tasks for name in t.sandbox.passthrough()}
    warnings += [w.message() for w in withheld_credentials(passthrough=names)]
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
