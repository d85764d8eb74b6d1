"""Criterion registry keyed by the YAML `type`; modules are found by scanning this package."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any, TypeVar

from coder_eval.criteria.base import Criterion

C = TypeVar("C", bound=type[Criterion[Any]])

_CHECKERS: dict[str, type[Criterion[Any]]] = {}
_NOT_CHECKERS = {
    "base",
    "registry",
    "paths",
    "scoring",
    "grading",
    "invocation_log",
    "shell_text",
}
_scanned = False


def register_criterion(criterion_type: str) -> Callable[[C], C]:
    """Class decorator; registering a different class for a taken type is an error."""

    def bind(cls: C) -> C:
        existing = _CHECKERS.get(criterion_type)
        if existing is not None and existing is not cls:
            raise ValueError(f"criterion type {criterion_type!r} already has checker {existing.__qualname__}")
        cls.criterion_type = criterion_type
        _CHECKERS[criterion_type] = cls
        return cls

    return bind


def _scan() -> None:
    global _scanned
    if _scanned:
        return
    import coder_eval.criteria as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in _NOT_CHECKERS and not info.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{info.name}")
    _scanned = True


def checker_for(criterion_type: str) -> Criterion[Any] | None:
    """An instance of the checker for `criterion_type`, or None if this install has none.

    Built-in checkers live in a module named after their type, so only that module is
    imported; anything else falls back to scanning the package once.
    """
    cls = _CHECKERS.get(criterion_type)
    if cls is None and criterion_type.isidentifier() and criterion_type not in _NOT_CHECKERS:
        try:
            importlib.import_module(f"coder_eval.criteria.{criterion_type}")
        except ModuleNotFoundError as exc:
            if exc.name != f"coder_eval.criteria.{criterion_type}":
                raise
        cls = _CHECKERS.get(criterion_type)
    if cls is None:
        _scan()
        cls = _CHECKERS.get(criterion_type)
    return cls() if cls is not None else None


def registered_types() -> list[str]:
    _scan()
    return sorted(_CHECKERS)
