"""The criterion registry: YAML `type` -> checker class, each registered with the spec model it grades.

`@register_criterion("my_check", spec=MyCheckSpec)` on a Criterion subclass is all a plugin
needs: the spec joins the `success_criteria` union (so `plan`, `schema` and the loader know the
type) and the checker grades it. Built-in checkers are registered lazily by module (a checker's
module is named after its type), so validating a task imports none of them.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from coder_eval.models.criteria import CRITERION_SPECS, criterion_types, spec_type
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.registry import Registry

if TYPE_CHECKING:  # the built-in hook imports this registry at start-up: keep it light
    from coder_eval.criteria.base import Criterion

C = TypeVar("C", bound="type[Criterion[Any]]")

CHECKERS: Registry[type[Criterion[Any]]] = Registry("criterion type")


def register_criterion(criterion_type: str, *, spec: type[BaseCriterion]) -> Callable[[C], C]:
    """Class decorator: `cls` grades criteria of `criterion_type`, validated by `spec`."""
    if spec_type(spec) != criterion_type:
        raise ValueError(f"spec {spec.__qualname__} answers to type {spec_type(spec)!r}, not {criterion_type!r}")

    def bind(cls: C) -> C:
        CRITERION_SPECS.add(criterion_type, spec)
        CHECKERS.add(criterion_type, cls)
        cls.criterion_type = criterion_type
        return cls

    return bind


def declare_builtin_criterion(spec: type[BaseCriterion]) -> None:
    """A shipped criterion: its spec now, its checker (module `coder_eval.criteria.<type>`) on first use."""
    kind = spec_type(spec)
    CRITERION_SPECS.add(kind, spec)
    module = f"coder_eval.criteria.{kind}"
    if importlib.util.find_spec(module) is not None:  # judges without a checker yet grade "not evaluated"
        CHECKERS.add_lazy(kind, module)


def checker_for(criterion_type: str) -> Criterion[Any] | None:
    """An instance of the checker for `criterion_type`, or None if this install has none."""
    cls = CHECKERS.find(criterion_type)
    return cls() if cls is not None else None


def registered_types() -> list[str]:
    """Every criterion type with a spec (what a task may use)."""
    return criterion_types()
