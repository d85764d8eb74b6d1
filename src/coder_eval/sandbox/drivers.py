"""Sandbox drivers, registered by the name `sandbox.driver` uses."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Protocol, TypeVar

from coder_eval.sandbox.templates import SetupError


class PreservationMode(StrEnum):
    """What happens to the workspace after the task: dropped, moved into artifacts/, or built there."""

    NONE = "NONE"
    MOVE_ON_WRITE = "MOVE_ON_WRITE"
    DIRECT_WRITE = "DIRECT_WRITE"


class Driver(Protocol):
    name: str
    default_preservation: PreservationMode

    def create(self, artifacts_dir: Path, mode: PreservationMode, scratch: Path | None) -> Path:
        """Create an empty workspace directory and return it (temporary ones under `scratch`)."""
        ...

    def finish(self, workspace: Path, artifacts_dir: Path, mode: PreservationMode) -> Path | None:
        """Preserve or remove the workspace; returns where it now lives (None when dropped)."""
        ...


D = TypeVar("D", bound=type)
_DRIVERS: dict[str, type] = {}


def register_driver(name: str) -> Callable[[D], D]:
    def bind(cls: D) -> D:
        existing = _DRIVERS.get(name)
        if existing is not None and existing is not cls:
            raise ValueError(f"sandbox driver {name!r} is already registered")
        _DRIVERS[name] = cls
        return cls

    return bind


def get_driver(name: str) -> Driver:
    cls = _DRIVERS.get(name)
    if cls is None:
        raise SetupError(
            f"sandbox driver {name!r} is not available in this installation (available: {', '.join(sorted(_DRIVERS))})"
        )
    driver: Driver = cls()
    return driver


@register_driver("tempdir")
class TempdirDriver:
    """A plain directory on the host. A working directory, not a security boundary."""

    name = "tempdir"
    default_preservation = PreservationMode.MOVE_ON_WRITE

    def create(self, artifacts_dir: Path, mode: PreservationMode, scratch: Path | None) -> Path:
        if mode is PreservationMode.DIRECT_WRITE:
            if artifacts_dir.exists():
                shutil.rmtree(artifacts_dir)
            artifacts_dir.mkdir(parents=True)
            return artifacts_dir
        if scratch is not None:
            scratch.mkdir(parents=True, exist_ok=True)
        workspace = Path(tempfile.mkdtemp(prefix="sbx-", dir=scratch))
        workspace.chmod(0o755)
        return workspace

    def finish(self, workspace: Path, artifacts_dir: Path, mode: PreservationMode) -> Path | None:
        if mode is PreservationMode.DIRECT_WRITE:
            return workspace
        if mode is PreservationMode.NONE:
            shutil.rmtree(workspace, ignore_errors=True)
            return None
        if artifacts_dir.exists():
            shutil.rmtree(artifacts_dir)
        artifacts_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(workspace), str(artifacts_dir))
        return artifacts_dir
