"""Sandboxes: where a unit's files live and its commands run. The public API for driver plugins:

    from coder_eval.sandbox import HostEnvironment, SandboxRequest, register_driver

See docs/extending.md; `environment.py` holds the execution contract every driver implements.
"""

from coder_eval.common.process import ExecResult
from coder_eval.sandbox.drivers import PreservationMode, SandboxRequest, register_driver
from coder_eval.sandbox.environment import Command, Launch, SandboxEnvironment
from coder_eval.sandbox.tempdir import HostEnvironment, TempdirDriver
from coder_eval.sandbox.templates import SetupError

__all__ = [
    "Command",
    "ExecResult",
    "HostEnvironment",
    "Launch",
    "PreservationMode",
    "SandboxEnvironment",
    "SandboxRequest",
    "SetupError",
    "TempdirDriver",
    "register_driver",
]
