"""Which Python a unit runs, and what its record says about it.

With `sandbox.python` (the default is an empty one) the unit gets its own virtual environment at
`<workspace>/.venv`, first on PATH with `VIRTUAL_ENV` set: a clone of the task's shared environment
(`task_envs.py`, `venv_clone.py`) when the driver can show that one read-only, otherwise (a plugin
driver that cannot, or editable requirements, which must point into the unit's own workspace) one
built for the unit alone with uv. With `python: null` the unit runs the host's interpreter, as
found on its PATH, which is read-only under isolating drivers.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from coder_eval.models.sandbox import PythonEnv
from coder_eval.sandbox.drivers import Driver, SandboxRequest
from coder_eval.sandbox.environment import SandboxEnvironment
from coder_eval.sandbox.environments import VENV_DIR, create_python_env, stage_pip
from coder_eval.sandbox.task_envs import SharedPythonEnv, editable, shared_python_env
from coder_eval.sandbox.venv_clone import clone_site, clone_venv, relink

MAX_INSTALLED_NAMES = 200
MAX_NAME_CHARS = 120
"""How much of what a unit installed its record lists (the names are the unit's to choose)."""
UNIT_ENV = {"PIP_DISABLE_PIP_VERSION_CHECK": "1"}
"""Set for every command of a unit with its own environment: pip does not ask an index about itself."""


class UnitPython:
    """The Python side of one unit's set-up."""

    def __init__(self, spec: PythonEnv | None, driver: Driver) -> None:
        self.spec = spec
        self.driver = driver
        self.shared: SharedPythonEnv | None = None
        self.info: dict[str, Any] = {"kind": "host"} if spec is None else {"kind": "venv"}

    def shares(self) -> bool:
        """Whether units get a clone of a shared environment (else each builds its own)."""
        return (
            self.spec is not None
            and bool(getattr(self.driver, "shows_shared_dirs", False))
            and not editable(self.spec.env_packages)
        )

    def prepare(
        self, request: SandboxRequest, *, task_file: Path, templates: Callable[[Path], None], timeout: float
    ) -> SandboxRequest:
        """Before the unit's environment exists: the shared environment, built if it is the first unit's."""
        if self.spec is None or not self.shares():
            return request
        self.shared = shared_python_env(
            self.spec, self.driver, request, task_file=task_file, prepare=templates, timeout=timeout
        )
        return _with_shared(request, self.shared.root)

    def provide(self, env: SandboxEnvironment, *, timeout: float) -> Path | None:
        """The unit's own environment, in its workspace; returns the bin directory for PATH."""
        if self.spec is None:
            self.info["interpreter"] = "python on the unit's PATH (the host's)"
            return None
        venv = env.workspace / VENV_DIR
        if venv.is_dir() and not venv.is_symlink():  # a template shipped one; the unit's own replaces it
            shutil.rmtree(venv)
        elif venv.is_symlink() or venv.exists():
            venv.unlink()
        if self.shared is not None:
            bin_dir = clone_venv(self.shared.template, venv)
            self.info.update(self.shared.info(), venv=str(env.inner_workspace / VENV_DIR), cloned=True)
        else:
            pip = stage_pip(self.spec, env.home_dir)
            try:
                bin_dir = create_python_env(self.spec, env, timeout=timeout, also=pip)
            finally:
                for staged in (Path(p) for p in pip if Path(p).is_absolute()):
                    staged.unlink(missing_ok=True)
            self.info.update(venv=str(env.inner_workspace / VENV_DIR), cloned=False, packages=self.spec.env_packages)
        env.add_env({"VIRTUAL_ENV": str(env.inner_workspace / VENV_DIR), **UNIT_ENV})
        return bin_dir

    def prepare_adopted(
        self, workspace: Path, request: SandboxRequest, *, task_file: Path, templates: Callable[[Path], None]
    ) -> SandboxRequest:
        """Before a preserved workspace is adopted for grading again: a shared environment its clone will
        point at (the run's own is gone when that run ended), built through the same driver and shown
        to the adopting environment as to a live unit."""
        if self.spec is None or not self.shares() or clone_site(workspace / VENV_DIR) is None:
            return request
        timeout = request.config.limits.timeout
        self.shared = shared_python_env(
            self.spec, self.driver, request, task_file=task_file, prepare=templates, timeout=timeout
        )
        return _with_shared(request, self.shared.root)

    def readopt(self, env: SandboxEnvironment) -> None:
        """The adopted workspace's clone pointed at that environment, so its commands see the packages
        they saw when the unit ran; VIRTUAL_ENV names it again."""
        venv = env.workspace / VENV_DIR
        if self.spec is None or not venv.is_dir():
            return
        if self.shared is not None and relink(self.shared.template, venv):
            self.info.update(self.shared.info(), venv=str(env.inner_workspace / VENV_DIR), cloned=True, relinked=True)
        env.add_env({"VIRTUAL_ENV": str(env.inner_workspace / VENV_DIR), **UNIT_ENV})

    def changed(self, env: SandboxEnvironment | None) -> str | None:
        """Why the shared environment cannot be trusted after this unit (only where a unit could write it)."""
        if self.shared is None or env is None or getattr(env, "shared_read_only", False):
            return None
        what = self.shared.changed()
        if what is None:
            return None
        return f"the task's shared Python environment ({self.shared.root}) was modified: {what}"

    def note_installed(self, workspace: Path | None) -> None:
        """Record what the unit installed into its own environment (read before the workspace goes)."""
        if workspace is None or self.spec is None or "installed_by_unit" in self.info:
            return
        site = clone_site(workspace / VENV_DIR)
        if site is None:
            return
        names: list[str] = []
        more = 0
        for path in site.glob("*.dist-info"):  # the unit named these directories: bounded, and cut short
            if len(names) < MAX_INSTALLED_NAMES:
                names.append(path.name[: -len(".dist-info")][:MAX_NAME_CHARS].replace("-", "==", 1))
            else:
                more += 1
        self.info["installed_by_unit"] = sorted(names)
        if more:
            self.info["installed_by_unit_not_listed"] = more


def _with_shared(request: SandboxRequest, root: Path) -> SandboxRequest:
    return replace(request, shared=(*request.shared, root))
