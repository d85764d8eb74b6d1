"""The `auto` driver (the default): bubblewrap where it works on this machine, otherwise tempdir.

Falling back is announced once per process, in one line, because tempdir is a working directory
and not a security boundary. A task that names a driver gets exactly that driver.
"""

from __future__ import annotations

import sys
from pathlib import Path

from coder_eval.sandbox.drivers import Driver, PreservationMode, SandboxRequest, register_driver
from coder_eval.sandbox.environment import SandboxEnvironment

FALLBACK_WARNING = (
    "bubblewrap is not usable here, so sandbox driver 'auto' runs tasks under 'tempdir', "
    "which is not a security boundary (install bubblewrap, or choose --driver docker)"
)
_warned = False


def resolve_auto() -> str:
    """The driver `auto` stands for on this machine: 'bubblewrap' or 'tempdir'."""
    from coder_eval.sandbox.bwrap import bwrap_works

    return "bubblewrap" if bwrap_works() else "tempdir"


def fallback_warning(drivers: set[str]) -> str | None:
    """The warning for tasks whose `auto` driver falls back to tempdir here (None when it does not)."""
    if "auto" not in drivers or resolve_auto() != "tempdir":
        return None
    from coder_eval.sandbox.bwrap import bwrap_diagnosis

    return f"{FALLBACK_WARNING}: {bwrap_diagnosis()}"


def warn_if_unisolated(drivers: set[str]) -> None:
    """Print the fallback warning once per process, on stderr (`run` calls this; `plan` lists it)."""
    global _warned
    message = fallback_warning(drivers)
    if message is not None and not _warned:
        _warned = True
        print(f"warning: {message}", file=sys.stderr)


def _chosen() -> Driver:
    from coder_eval.sandbox.drivers import get_driver

    return get_driver(resolve_auto())


@register_driver("auto")
class AutoDriver:
    """Delegates every call to the driver `resolve_auto` picks."""

    name = "auto"
    default_preservation = PreservationMode.MOVE_ON_WRITE

    def create(self, request: SandboxRequest) -> SandboxEnvironment:
        return _chosen().create(request)

    def adopt(self, workspace: Path, request: SandboxRequest) -> SandboxEnvironment:
        return _chosen().adopt(workspace, request)
