"""The criterion registry: YAML `type` -> checker class, each registered with the spec model it grades.

`@register_criterion("my_check", spec=MyCheckSpec)` on a Criterion subclass is all a plugin
needs: the spec joins the `success_criteria` union (so `plan`, `schema` and the loader know the
type) and the checker grades it. Built-in checkers are registered lazily by module (a checker's
module is named after its type), so validating a task imports none of them.

The bare form of the reference system's guide works too: `@register_criterion` on a
`BaseCriterion[MySpec]` subclass (`coder_eval.criteria.base`) reads the type from its
`criterion_type` and the spec from its generic parameter.
"""

from __future__ import annotations

import importlib.util
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

from coder_eval.models.criteria import CRITERION_SPECS, criterion_types, spec_type
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.registry import Registry

if TYPE_CHECKING:  # the built-in hook imports this registry at start-up: keep it light
    from coder_eval.criteria.base import Criterion

C = TypeVar("C", bound="type[Criterion[Any]]")

CHECKERS: Registry[type[Criterion[Any]]] = Registry("criterion type")


@overload
def register_criterion(criterion_type: str, *, spec: type[BaseCriterion]) -> Callable[[C], C]: ...


@overload
def register_criterion(criterion_type: C) -> C: ...


def register_criterion(criterion_type: str | C, *, spec: type[BaseCriterion] | None = None) -> Any:
    """Class decorator: `cls` grades criteria of `criterion_type`, validated by `spec`.

    Used bare on a class (`@register_criterion`), the type and spec come from the class itself.
    """
    if isinstance(criterion_type, type):
        return _register_bare(criterion_type)
    if spec is None:
        raise TypeError(f"register_criterion({criterion_type!r}) needs spec=<the criterion's spec model>")
    if spec_type(spec) != criterion_type:
        raise ValueError(f"spec {spec.__qualname__} answers to type {spec_type(spec)!r}, not {criterion_type!r}")

    def bind(cls: C) -> C:
        CRITERION_SPECS.add(criterion_type, spec)
        CHECKERS.add(criterion_type, cls)
        cls.criterion_type = criterion_type
        return cls

    return bind


def spec_of(cls: type[Any]) -> type[BaseCriterion] | None:
    """The spec model a checker class names as its generic parameter (`BaseCriterion[MySpec]`)."""
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            for arg in typing.get_args(base):
                if isinstance(arg, type) and issubclass(arg, BaseCriterion):
                    return arg
    return None


def _register_bare(cls: C) -> C:
    kind = getattr(cls, "criterion_type", None)
    if not isinstance(kind, str) or not kind:
        raise TypeError(f'{cls.__qualname__}: set `criterion_type = "..."` to the type its spec model answers to')
    spec = spec_of(cls)
    if spec is None:
        raise TypeError(
            f"{cls.__qualname__}: subclass BaseCriterion[YourSpec] so the spec model of {kind!r} is known "
            "(its pydantic model, a BaseSuccessCriterion subclass with `type: Literal[...]`)"
        )
    return register_criterion(kind, spec=spec)(cls)


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
