"""Sandboxes: where a unit's files live and its commands run. The public API for driver plugins:

    from coder_eval.sandbox import HostEnvironment, SandboxRequest, register_driver

Names load on first use (PEP 562). `environment.py` holds the execution contract every driver
implements; see docs/extending.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LOCATIONS = {
    "ExecResult": "coder_eval.common.process",
    "PreservationMode": "coder_eval.sandbox.drivers",
    "SandboxRequest": "coder_eval.sandbox.drivers",
    "register_driver": "coder_eval.sandbox.drivers",
    "Command": "coder_eval.sandbox.environment",
    "Launch": "coder_eval.sandbox.environment",
    "SandboxEnvironment": "coder_eval.sandbox.environment",
    "HostEnvironment": "coder_eval.sandbox.tempdir",
    "TempdirDriver": "coder_eval.sandbox.tempdir",
    "SetupError": "coder_eval.sandbox.templates",
}

__all__ = sorted(_LOCATIONS)


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from coder_eval.common.process import ExecResult
    from coder_eval.sandbox.drivers import PreservationMode, SandboxRequest, register_driver
    from coder_eval.sandbox.environment import Command, Launch, SandboxEnvironment
    from coder_eval.sandbox.tempdir import HostEnvironment, TempdirDriver
    from coder_eval.sandbox.templates import SetupError
