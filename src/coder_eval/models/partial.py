"""Walk pydantic schemas by dotted path: field lookup, did-you-mean and partial-dict checks.

Shared by the experiment models (partial `agent` / `run_limits` / `sandbox` dicts are
checked for unknown keys at load), the `-D` override parser and the merge resolver. It lives
in `models` because the experiment models validate with it, and `models` imports nothing
else of ours; agent kinds come from the agent-config registry, which loads plugins lazily.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Union

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from coder_eval.models.agent import BaseAgentConfig, agent_config_class, registered_agent_kinds


def unwrap(annotation: Any) -> list[Any]:
    """The concrete alternatives of an annotation, with Annotated and unions peeled away."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return unwrap(typing.get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return [t for arg in typing.get_args(annotation) for t in unwrap(arg)]
    return [annotation]


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def is_agent_annotation(annotation: Any) -> bool:
    """True for the open agent union (`BaseAgentConfig`, validated by `parse_agent_config`)."""
    return any(tp is BaseAgentConfig for tp in unwrap(annotation))


def nested_model(annotation: Any) -> type[BaseModel] | None:
    """The single BaseModel an annotation holds directly (not inside a list), if any."""
    found = [tp for tp in unwrap(annotation) if _is_model(tp)]
    return found[0] if len(found) == 1 else None


def is_mapping_annotation(annotation: Any) -> bool:
    """True when the annotation allows a free-form dict."""
    return any(tp is dict or typing.get_origin(tp) is dict for tp in unwrap(annotation))


def is_list_annotation(annotation: Any) -> bool:
    return any(tp is list or typing.get_origin(tp) is list for tp in unwrap(annotation))


def admits_none(annotation: Any) -> bool:
    return any(tp is type(None) or tp is None for tp in unwrap(annotation))


def all_agent_fields() -> dict[str, FieldInfo]:
    """Fields of every registered agent config class (used before the agent type is known)."""
    out: dict[str, FieldInfo] = dict(BaseAgentConfig.model_fields)
    for kind in registered_agent_kinds():
        for name, info in agent_config_class(kind).model_fields.items():
            out.setdefault(name, info)
    return out


def agent_fields(kind: str | None) -> dict[str, FieldInfo]:
    """Fields of the config class for `kind`; every known agent field when `kind` is None."""
    if kind is None:
        return all_agent_fields()
    return dict(agent_config_class(kind).model_fields)


def unknown_key_message(path: str, key: str, known: Sequence[str]) -> str:
    """`path.key: unknown key (did you mean ...)` with the allowed keys when nothing is close."""
    where = f"{path}.{key}" if path else key
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else f"allowed keys: {', '.join(sorted(known))}"
    return f"{where}: unknown key ({hint})"


def _value_problem(info: FieldInfo, value: Any, where: str) -> str | None:
    """Check one leaf value against its field's type and constraints (model validators run later)."""
    target: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(target)
        adapter.validate_python(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        return f"{where}: {first['msg']}"
    except Exception:  # an annotation TypeAdapter cannot build standalone; the full validation catches it
        return None
    return None


def check_partial(fields: Mapping[str, FieldInfo], data: Mapping[str, Any], path: str) -> list[str]:
    """Problems in a partial dict: unknown keys (with did-you-mean) and badly typed leaf values.

    Nested models are checked recursively when given as mappings; free-form dicts and lists
    are only type-checked. Cross-field rules wait for the full validation after the merge.
    """
    problems: list[str] = []
    for key, value in data.items():
        info = fields.get(str(key))
        where = f"{path}.{key}" if path else str(key)
        if info is None:
            problems.append(unknown_key_message(path, str(key), list(fields)))
            continue
        if value is None:
            continue  # null resets the field; the merged result is validated in full
        child = nested_model(info.annotation)
        if child is not None and isinstance(value, Mapping):
            problems.extend(check_partial(child.model_fields, value, where))
            continue
        problem = _value_problem(info, value, where)
        if problem:
            problems.append(problem)
    return problems


def check_partial_agent(data: Mapping[str, Any], path: str = "agent") -> list[str]:
    """Check a partial agent dict against the class of its `type`, or every agent field without one."""
    kind = data.get("type")
    if kind is not None and not isinstance(kind, str):
        return [f"{path}.type: must be a string"]
    if kind is None:
        known = all_agent_fields()
        return [unknown_key_message(path, str(k), list(known)) for k in data if str(k) not in known]
    try:
        fields = agent_fields(kind)
    except ValueError as exc:
        return [f"{path}.type: {exc}"]
    return check_partial(fields, data, path)
