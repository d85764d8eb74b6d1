"""Sandbox drivers, registered by the name `sandbox.driver` uses.

A driver turns a unit's sandbox request into a `SandboxEnvironment` (see `environment.py`); the
engine, the criteria and the agents only ever talk to that environment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol, TypeVar

from coder_eval.models.registry import Registry
from coder_eval.models.sandbox import SANDBOX_DRIVERS, SandboxConfig
from coder_eval.sandbox.environment import SandboxEnvironment
from coder_eval.sandbox.templates import SetupError


class PreservationMode(StrEnum):
    """What happens to the workspace after the task: dropped, moved into artifacts/, or built there."""

    NONE = "NONE"
    MOVE_ON_WRITE = "MOVE_ON_WRITE"
    DIRECT_WRITE = "DIRECT_WRITE"


@dataclass(frozen=True)
class SandboxRequest:
    """What a driver needs to create one unit's environment."""

    config: SandboxConfig
    artifacts_dir: Path
    """Where the workspace is preserved (or, with DIRECT_WRITE, built)."""
    mode: PreservationMode
    scratch: Path | None = None
    """Where temporary workspaces go (the run's scratch directory)."""
    task_dir: Path | None = None
    base_env: dict[str, str] | None = None
    """The host environment to start from (default: the harness's, credentials removed)."""
    extra: dict[str, str] = field(default_factory=dict)
    tools: tuple[str, ...] = ()
    """Host paths of programs the unit runs (the agent's CLI), made visible read-only by isolating drivers."""
    notes: list[str] = field(default_factory=list)
    """What the driver did that the unit's record should say (files left out when preserving)."""
    runs_agent: bool = True
    """Whether code the task author did not write runs here (an agent, or grading of its work). Units that
    run only the author's commands skip the default memory and process limits, which cost a cgroup."""
    shared: tuple[Path, ...] = ()
    """Host directories every process of the unit may read but never write (the task's shared Python
    environment), shown at the same path inside; isolating drivers mount them read-only."""


class Driver(Protocol):
    name: str
    default_preservation: PreservationMode
    shows_shared_dirs: bool
    """Whether its environments show `SandboxRequest.shared` at the same path. A driver without the
    attribute counts as not: its units get a Python environment built for each of them instead."""

    def create(self, request: SandboxRequest) -> SandboxEnvironment:
        """A fresh, empty environment for one unit."""
        ...

    def adopt(self, workspace: Path, request: SandboxRequest) -> SandboxEnvironment:
        """An environment over an existing workspace (re-grading); creates nothing."""
        ...


D = TypeVar("D", bound=type)

DRIVERS: Registry[type] = Registry("sandbox driver")


def register_driver(name: str) -> Callable[[D], D]:
    """Class decorator: register a Driver implementation under `name`."""

    def bind(cls: D) -> D:
        DRIVERS.add(name, cls)
        SANDBOX_DRIVERS.add(name, name)
        return cls

    return bind


BUILTIN_DRIVERS = ("tempdir", "bubblewrap", "docker", "auto")
"""The drivers that come with Coder Eval (every one of them shows units `SandboxRequest.shared`)."""


def register_builtin_drivers() -> None:
    DRIVERS.add_lazy("tempdir", "coder_eval.sandbox.tempdir:TempdirDriver")
    DRIVERS.add_lazy("bubblewrap", "coder_eval.sandbox.bwrap_driver:BubblewrapDriver")
    DRIVERS.add_lazy("docker", "coder_eval.sandbox.docker:DockerDriver")
    DRIVERS.add_lazy("auto", "coder_eval.sandbox.auto:AutoDriver")
    for name in BUILTIN_DRIVERS:
        SANDBOX_DRIVERS.add(name, name)


def get_driver(name: str) -> Driver:
    cls = DRIVERS.find(name)
    if cls is None:
        available = ", ".join(DRIVERS.names())
        raise SetupError(f"sandbox driver {name!r} is not available in this installation (available: {available})")
    driver: Driver = cls()
    return driver
