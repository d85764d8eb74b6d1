"""Validate a record another writer produced, saying what could not be carried instead of failing.

Two passes over a raw JSON record, both generic (driven by the model's own fields):

- `unknown_keys` lists the keys the model has no field for, with a non-empty value (they would be
  dropped silently, since records ignore unknown keys);
- `validate_tolerantly` validates, and when a value does not fit (a status string we do not have,
  a list where a number is expected) removes it so the field takes its default, and tries again.
  A required field that cannot be filled still fails.

Every note names a path pattern with list indexes folded (`iterations[].commands[].status`), so
a thousand affected tool calls make one line that says how many places it covers.
"""

from __future__ import annotations

import typing
from collections import Counter
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

MAX_REPAIRS = 200
"""Values a record may have removed before it is declared unreadable."""


def pattern(loc: tuple[int | str, ...]) -> str:
    """`('iterations', 0, 'commands', 3, 'status')` -> `iterations[].commands[].status`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += "[]"
        elif not out:
            out = str(part)
        else:
            out += f".{part}"
    return out


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The BaseModel classes an annotation can hold (through Optional, list, dict values, unions)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found += _models_in(arg)
    return found


def _known_keys(models: list[type[BaseModel]]) -> set[str] | None:
    """Keys some of `models` accepts; None when one of them keeps every key (extra="allow")."""
    keys: set[str] = set()
    for model in models:
        if model.model_config.get("extra") == "allow":
            return None
        for name, info in model.model_fields.items():
            keys.add(name)
            if isinstance(info.validation_alias, str):
                keys.add(info.validation_alias)
            if info.alias:
                keys.add(info.alias)
        keys.update(model.model_computed_fields)
    return keys


def _field_models(models: list[type[BaseModel]], key: str) -> list[type[BaseModel]]:
    out: list[type[BaseModel]] = []
    for model in models:
        for name, info in model.model_fields.items():
            if key in (name, info.validation_alias, info.alias):
                out += _models_in(info.annotation)
    return out


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def unknown_keys(model: type[BaseModel], raw: Any) -> Counter[str]:
    """Path pattern -> how many places hold a non-empty value under a key `model` does not know."""
    found: Counter[str] = Counter()
    _walk([model], raw, (), found)
    return found


def _walk(models: list[type[BaseModel]], raw: Any, loc: tuple[int | str, ...], found: Counter[str]) -> None:
    if isinstance(raw, list):
        for i, item in enumerate(raw):
            _walk(models, item, (*loc, i), found)
        return
    if not isinstance(raw, dict) or not models:
        return
    known = _known_keys(models)
    if known is None:
        return
    for key, value in raw.items():
        if key not in known:
            if not _empty(value):
                found[pattern((*loc, key))] += 1
            continue
        inner = _field_models(models, key)
        if inner:
            _walk(inner, value, (*loc, key), found)


def _remove(raw: Any, loc: tuple[int | str, ...]) -> bool:
    """Delete the value at `loc` (a dict key, or a list element); False when there is nothing to delete."""
    if not loc:
        return False
    parent = raw
    for part in loc[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return False
    last = loc[-1]
    if isinstance(parent, dict) and last in parent:
        del parent[last]
        return True
    if isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent):
        del parent[last]
        return True
    return False


def _real_loc(loc: tuple[int | str, ...], raw: Any) -> tuple[int | str, ...]:
    """The error location without pydantic's union-member tags (`...messages.3.assistant.content`)."""
    real: list[int | str] = []
    node = raw
    for part in loc:
        inside_dict = isinstance(node, dict) and part in node
        inside_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if inside_dict or inside_list:
            node = node[part]
            real.append(part)
        # anything else is a tag pydantic added (a union member's name): skip it
    return tuple(real)


def _sort_key(loc: tuple[int | str, ...]) -> tuple[tuple[int, int, str], ...]:
    return tuple((1, part, "") if isinstance(part, int) else (0, 0, part) for part in loc)


def _target(error_type: str, loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """What to remove for an error: the value itself, or for a missing required key the list item holding it."""
    if error_type != "missing":
        return loc
    for i in range(len(loc) - 1, -1, -1):
        if isinstance(loc[i], int):
            return loc[: i + 1]
    return ()  # a required top-level field: nothing to remove, the record is unreadable


def validate_tolerantly(model: type[M], raw: dict[str, Any]) -> tuple[M, Counter[str]]:
    """The validated record, and path pattern -> values removed because they did not fit.

    Each round removes every offending value at once (deepest and last first, so list positions
    stay valid) and validates again; a round that can remove nothing re-raises the error.
    """
    removed: Counter[str] = Counter()
    for _ in range(MAX_REPAIRS):
        try:
            return model.model_validate(raw), removed
        except ValidationError as exc:
            targets: dict[tuple[int | str, ...], str] = {}
            for error in exc.errors(include_url=False):
                loc = _target(error["type"], _real_loc(tuple(error["loc"]), raw))
                if loc:
                    targets.setdefault(loc, error["msg"])
            progress = False
            for loc in sorted(targets, key=_sort_key, reverse=True):
                if _remove(raw, loc):
                    removed[f"{pattern(loc)} ({targets[loc]})"] += 1
                    progress = True
            if not progress:
                raise
    return model.model_validate(raw), removed


__all__ = ["pattern", "unknown_keys", "validate_tolerantly"]
