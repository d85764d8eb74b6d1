"""Turn pydantic validation errors into problems a person can act on."""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from typing import Any, Union

from pydantic import BaseModel, ValidationError

from coder_eval.common.suggest import did_you_mean
from coder_eval.errors import Problem
from coder_eval.loading.yaml_source import LineMap
from coder_eval.models.agent import DEFAULT_AGENT_KIND, BaseAgentConfig, agent_config_class
from coder_eval.models.criteria import criterion_spec, unalias_criterion
from coder_eval.models.criteria_base import BaseCriterion

Loc = tuple[str | int, ...]


def format_loc(loc: Sequence[str | int]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _unwrap(annotation: Any) -> list[Any]:
    """The concrete types an annotation may hold, with Optional/Annotated/containers peeled."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return [t for arg in typing.get_args(annotation) for t in _unwrap(arg)]
    return [annotation]


def _child_types(annotation: Any, step: str | int) -> list[Any]:
    out: list[Any] = []
    for t in _unwrap(annotation):
        origin = typing.get_origin(t)
        args = typing.get_args(t)
        if origin is list and isinstance(step, int):
            out.extend(_unwrap(args[0]))
        elif origin is dict and isinstance(step, str) and len(args) == 2:
            out.extend(_unwrap(args[1]))
    return out


def _model_at(root: type[BaseModel], loc: Loc, raw: Any) -> type[BaseModel] | None:
    """Walk the schema along an error location to the model that owns its last key."""
    current: list[Any] = [root]
    data = raw
    for step in loc:
        models = [t for t in current if isinstance(t, type) and issubclass(t, BaseModel)]
        if isinstance(step, str):
            tagged = [m for m in models if "type" in m.model_fields and m.model_fields["type"].default == step]
            if tagged:  # a discriminated-union tag inserted by pydantic
                current = tagged
                continue
        nxt: list[Any] = []
        for m in models:
            field = m.model_fields.get(str(step))
            if field is not None:
                nxt.extend(_unwrap(field.annotation))
        if not models:
            nxt = _child_types_all(current, step)
        data = (
            data.get(step)
            if isinstance(data, dict)
            else (data[step] if isinstance(data, list) and isinstance(step, int) and step < len(data) else None)
        )
        current = [_open_member(t, data) for t in nxt]
    models = [t for t in current if isinstance(t, type) and issubclass(t, BaseModel)]
    return models[0] if len(models) == 1 else None


def _open_member(tp: Any, data: Any) -> Any:
    """For an open union (agent configs, criteria), the class its raw `type` picks; else `tp`."""
    if tp is BaseAgentConfig:
        return _agent_model(data)
    if tp is BaseCriterion and isinstance(data, dict) and isinstance(data.get("type"), str):
        return criterion_spec(str(unalias_criterion(data)["type"])) or BaseCriterion  # a legacy alias: its target
    return tp


def _child_types_all(current: list[Any], step: str | int) -> list[Any]:
    return [c for t in current for c in _child_types(t, step)]


def _agent_model(raw_agent: Any) -> type[BaseModel]:
    kind = raw_agent.get("type", DEFAULT_AGENT_KIND) if isinstance(raw_agent, dict) else DEFAULT_AGENT_KIND
    try:
        return agent_config_class(str(kind))
    except ValueError:
        return BaseAgentConfig


def _line_for(loc: Loc, lines: LineMap) -> int | None:
    for cut in range(len(loc), -1, -1):
        line = lines.get(tuple(loc[:cut]))
        if line is not None:
            return line
    return None


def _clean_loc(loc: Loc, raw: Any) -> Loc:
    """Drop the union tags pydantic inserts, keeping the path as written in YAML."""
    out: list[str | int] = []
    node = raw
    for step in loc:
        if isinstance(step, str) and "[" in step and step.split("[")[0] in _WRAPPER_TAGS:
            continue
        if isinstance(node, dict) and isinstance(step, str) and step not in node and node.get("type") == step:
            continue  # discriminator tag, not a key the user wrote
        out.append(step)
        if isinstance(node, dict):
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            node = None
    return tuple(out)


_WRAPPER_TAGS = {"function-after", "function-before", "function-wrap", "function-plain", "nullable", "list"}


def validation_problems(exc: ValidationError, raw: Any, lines: LineMap, root: type[BaseModel]) -> list[Problem]:
    """One Problem per pydantic error, with the YAML path, line and a fix."""
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for err in exc.errors(include_url=False):
        raw_loc: Loc = tuple(err["loc"])
        loc = _clean_loc(raw_loc, raw)
        message, hint = _describe(err, raw_loc, loc, raw, root)
        line = _line_for(loc, lines)
        where = format_loc(loc)
        if line is not None:
            where = f"{where} (line {line})" if where else f"line {line}"
        key = (where, message)
        if key in seen:
            continue
        seen.add(key)
        problems.append(Problem(message, where, hint))
    return problems


def _describe(err: Any, raw_loc: Loc, loc: Loc, raw: Any, root: type[BaseModel]) -> tuple[str, str]:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "extra_forbidden" and loc:
        key = str(loc[-1])
        owner = _model_at(root, raw_loc[:-1], raw)
        hint = did_you_mean(key, list(owner.model_fields)) if owner else ""
        allowed = f"allowed keys: {', '.join(sorted(owner.model_fields))}" if owner and not hint else ""
        return f"unknown key {key!r}", hint or allowed
    if kind == "union_tag_invalid":
        tag = str(ctx.get("tag", ""))
        expected = [t.strip().strip("'") for t in str(ctx.get("expected_tags", "")).split(",")]
        return f"unknown type {tag!r}", did_you_mean(tag, expected) or f"expected one of: {', '.join(expected)}"
    if kind == "union_tag_not_found":
        return "missing `type`", f"set type to one of the supported kinds ({ctx.get('discriminator', 'type')})"
    if kind == "missing":
        return "required field is missing", ""
    msg = str(err["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix) :]
    return msg, ""
