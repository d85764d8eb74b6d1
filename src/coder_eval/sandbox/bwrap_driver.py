"""The `bubblewrap` driver: a unit's namespaces (bwrap.py), or, for a rehearsed docker task, the same with
its Dockerfile replayed (rehearsal.py)."""

from __future__ import annotations

from pathlib import Path

from coder_eval.sandbox.bwrap import BubblewrapEnvironment, bwrap_diagnosis, bwrap_works
from coder_eval.sandbox.drivers import PreservationMode, SandboxRequest, register_driver
from coder_eval.sandbox.rehearsal import rehearse
from coder_eval.sandbox.tempdir import Finisher, TempdirDriver
from coder_eval.sandbox.templates import SetupError


@register_driver("bubblewrap")
class BubblewrapDriver(TempdirDriver):
    """Namespaces per unit with bubblewrap: no daemon, no root needed where user namespaces are allowed."""

    name = "bubblewrap"
    default_preservation = PreservationMode.MOVE_ON_WRITE

    def create(self, request: SandboxRequest) -> BubblewrapEnvironment:
        if not bwrap_works():
            raise SetupError(f"bubblewrap cannot isolate units on this machine: {bwrap_diagnosis()}")
        workspace = self.new_workspace(request)
        finisher = Finisher(request.artifacts_dir, request.mode, request.notes)
        if _rehearsed(request):
            return rehearse(workspace, request, finisher)
        return BubblewrapEnvironment(workspace, request, finisher)

    def adopt(self, workspace: Path, request: SandboxRequest) -> BubblewrapEnvironment:
        """Namespaces over an existing workspace (re-grading runs the agent's code: never on the host)."""
        if not bwrap_works():
            raise SetupError(f"bubblewrap cannot isolate units on this machine: {bwrap_diagnosis()}")
        if _rehearsed(request):
            env: BubblewrapEnvironment = rehearse(workspace.resolve(), request, None, existing=True)
        else:
            env = BubblewrapEnvironment(workspace.resolve(), request, None, existing=True)
        env.seal()
        return env


def _rehearsed(request: SandboxRequest) -> bool:
    """Whether the unit replays its docker settings (sandbox.rehearsal) instead of running plain."""
    rehearsal = request.config.rehearsal
    return rehearsal is not None and rehearsal.enabled and request.config.docker is not None
