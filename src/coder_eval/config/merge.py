"""The one merge resolver behind all five config layers.

Layers, lowest first: baseline (`experiments/default.yaml`), experiment defaults, the
task, the variant, and the command line (`-D` / `--set` and its aliases). Every field
declares how it merges exactly once, on the model that owns it:

* `Annotated[..., MergeField("append")]`, or
* `Field(json_schema_extra={"merge": "append"})` (see `merge_extra`), or
* for models owned outside this package until they carry the marker themselves,
  one entry in `MODEL_DECLARATIONS` below.

A field without a declaration merges by its type: nested models and free-form dicts
merge deeply (a higher layer touching one key keeps its siblings), lists and scalars
are replaced by the highest layer that sets them. Because the strategy belongs to the
field and not to the layer, a field merges the same way whichever layer supplies it.

Strategies:

* `replace` - the highest layer's value wins.
* `deep` - mappings merge key by key, recursively; a non-mapping value replaces.
* `shallow` - mappings merge key by key, each key replaced whole (per-namespace).
* `append` - lists concatenate in layer order.
* `append_task_first` - lists concatenate with the task's own entries first, then
  the other layers in layer order.

The agent is an open union, so its raw dicts merge under the config class of the
agent type chosen by the highest layer that sets `type` (default claude-code). Keys
from lower layers that targeted a different agent type and that the chosen class
lacks are dropped: they configured another kind of agent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from coder_eval.models.agent import DEFAULT_AGENT_KIND, agent_config_class
from coder_eval.models.partial import (
    admits_none,
    agent_fields,
    is_agent_annotation,
    is_list_annotation,
    is_mapping_annotation,
    nested_model,
)

MergeStrategy = Literal["replace", "deep", "shallow", "append", "append_task_first"]
LayerName = Literal["baseline", "experiment", "task", "variant", "cli"]
LAYER_ORDER: tuple[LayerName, ...] = ("baseline", "experiment", "task", "variant", "cli")
STRATEGIES: frozenset[str] = frozenset({"replace", "deep", "shallow", "append", "append_task_first"})


@dataclass(frozen=True)
class MergeField:
    """`Annotated` marker declaring a field's merge strategy."""

    strategy: MergeStrategy


def merge_extra(strategy: MergeStrategy) -> dict[str, Any]:
    """`json_schema_extra` payload declaring a field's merge strategy."""
    return {"merge": strategy}


# Every strategy other than the type-aware default is declared on its model with
# `json_schema_extra={"merge": ...}` (the models cannot import this package).
MODEL_DECLARATIONS: dict[tuple[type[BaseModel], str], MergeStrategy] = {}


@dataclass(frozen=True)
class Layer:
    """One config layer: task-shaped partial data (`agent`, `run_limits`, `sandbox`, ...)."""

    name: LayerName
    data: dict[str, Any] = field(default_factory=dict)
    detail: str = ""
    path_details: Mapping[str, str] = field(default_factory=dict)

    def detail_for(self, path: str) -> str:
        """The most specific detail recorded for `path` (e.g. the `-D` flag that set it)."""
        best = max((p for p in self.path_details if path == p or path.startswith(p + ".")), key=len, default=None)
        return self.path_details[best] if best is not None else self.detail


class LineageEntry(TypedDict):
    """Where a resolved value came from."""

    value: Any
    source: str
    source_detail: str


Lineage = dict[str, LineageEntry]
Contribution = tuple[Layer, Any]


def _declared(info: FieldInfo) -> MergeStrategy | None:
    for meta in info.metadata:
        if isinstance(meta, MergeField):
            return meta.strategy
    extra = info.json_schema_extra
    if isinstance(extra, dict):
        value = extra.get("merge")
        if isinstance(value, str) and value in STRATEGIES:
            return value  # type: ignore[return-value]
    return None


def default_strategy(annotation: Any) -> MergeStrategy:
    """Type-aware default: nested models and free-form dicts merge deep; lists and scalars replace."""
    if is_list_annotation(annotation):
        return "replace"
    if is_agent_annotation(annotation) or nested_model(annotation) or is_mapping_annotation(annotation):
        return "deep"
    return "replace"


def field_strategy(model: type[BaseModel], name: str) -> MergeStrategy:
    """The merge strategy of `model.name`: its declaration, else the type-aware default."""
    info = model.model_fields[name]
    declared = _declared(info)
    if declared is not None:
        return declared
    for klass in model.__mro__:
        strategy = MODEL_DECLARATIONS.get((klass, name))
        if strategy is not None:
            return strategy
    return default_strategy(info.annotation)


def _entry(layer: Layer, value: Any, path: str) -> LineageEntry:
    return {"value": value, "source": layer.name, "source_detail": layer.detail_for(path)}


def _ordered(layers: Sequence[Layer]) -> list[Layer]:
    return sorted(layers, key=lambda layer: LAYER_ORDER.index(layer.name))


def resolve_root(root_model: type[BaseModel], layers: Sequence[Layer]) -> tuple[dict[str, Any], Lineage]:
    """Merge task-shaped layer dicts under `root_model`'s declared strategies.

    Returns the merged raw dict (validate it with the model afterwards) and the lineage:
    one entry per resolved leaf path (`agent.model`, `sandbox.docker.image`, ...).
    """
    lineage: Lineage = {}
    contributions = [(layer, layer.data) for layer in _ordered(layers) if layer.data]
    merged = _merge_model(root_model, contributions, "", lineage)
    return merged, lineage


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _merge_model(model: type[BaseModel], contribs: list[Contribution], path: str, lineage: Lineage) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for key in _keys(contribs):
        present = [(layer, data[key]) for layer, data in contribs if key in data]
        info = model.model_fields.get(key)
        where = _join(path, key)
        if info is None:  # unknown key: keep the highest value so validation reports it
            merged[key] = _replace(present, where, lineage)
            continue
        value = _merge_value(field_strategy(model, key), info.annotation, present, where, lineage)
        if value is None and not admits_none(info.annotation):
            continue  # null resets a non-nullable field to its default
        merged[key] = value
    return merged


def _keys(contribs: list[Contribution]) -> list[str]:
    keys: dict[str, None] = {}
    for _, data in contribs:
        keys.update(dict.fromkeys(str(k) for k in data))
    return list(keys)


def _merge_value(
    strategy: MergeStrategy, annotation: Any, present: list[Contribution], path: str, lineage: Lineage
) -> Any:
    if strategy == "replace":
        return _replace(present, path, lineage)
    if strategy in ("append", "append_task_first"):
        return _append(present, path, lineage, task_first=strategy == "append_task_first")
    return _merge_mappings(strategy, annotation, present, path, lineage)


def _replace(present: list[Contribution], path: str, lineage: Lineage) -> Any:
    layer, value = present[-1]
    lineage[path] = _entry(layer, value, path)
    return value


def _append(present: list[Contribution], path: str, lineage: Lineage, *, task_first: bool) -> list[Any]:
    if task_first:
        present = [c for c in present if c[0].name == "task"] + [c for c in present if c[0].name != "task"]
    out: list[Any] = []
    for _, value in present:
        if value is None:
            continue
        out.extend(value if isinstance(value, list) else [value])
    lineage[path] = {
        "value": out,
        "source": ",".join(layer.name for layer, _ in present),
        "source_detail": "; ".join(layer.detail_for(path) for layer, _ in present if layer.detail_for(path)),
    }
    return out


def _merge_mappings(
    strategy: MergeStrategy, annotation: Any, present: list[Contribution], path: str, lineage: Lineage
) -> Any:
    """Deep or shallow merge from the last non-mapping value upward."""
    cut = max((i for i, (_, v) in enumerate(present) if not isinstance(v, Mapping)), default=-1)
    if cut == len(present) - 1:
        return _replace(present, path, lineage)
    maps = present[cut + 1 :]
    if strategy == "shallow":
        merged = _merge_shallow(maps, path, lineage)
    elif is_agent_annotation(annotation):
        merged = _merge_agent(maps, path, lineage)
    else:
        child = nested_model(annotation)
        merged = _merge_model(child, maps, path, lineage) if child else _merge_free(maps, path, lineage)
    if not merged:
        lineage[path] = _entry(maps[-1][0], {}, path)
    return merged


def _merge_shallow(maps: list[Contribution], path: str, lineage: Lineage) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for key in _keys(maps):
        merged[key] = _replace([(layer, d[key]) for layer, d in maps if key in d], _join(path, key), lineage)
    return merged


def _merge_free(maps: list[Contribution], path: str, lineage: Lineage) -> dict[str, Any]:
    """A free-form dict: nested mappings merge deep, everything else is replaced."""
    merged: dict[str, Any] = {}
    for key in _keys(maps):
        present = [(layer, d[key]) for layer, d in maps if key in d]
        merged[key] = _merge_mappings("deep", dict[str, Any], present, _join(path, key), lineage)
    return merged


def winning_agent_type(values: Sequence[Any]) -> str:
    """The agent type set by the highest layer that sets one (claude-code when none does)."""
    kind = DEFAULT_AGENT_KIND
    for value in values:
        if isinstance(value, Mapping) and isinstance(value.get("type"), str):
            kind = value["type"]
    return kind


def _merge_agent(maps: list[Contribution], path: str, lineage: Lineage) -> dict[str, Any]:
    """Merge raw agent dicts under the config class of the winning type."""
    final = winning_agent_type([v for _, v in maps])
    try:
        fields = agent_fields(final)
    except ValueError:  # unknown type: merge untyped; validation names the known kinds
        return _merge_free(maps, path, lineage)
    kept: list[Contribution] = []
    current = DEFAULT_AGENT_KIND
    for layer, value in maps:
        current = value["type"] if isinstance(value.get("type"), str) else current
        if current != final:  # this layer configured another agent kind: keep only shared keys
            value = {k: v for k, v in value.items() if k in fields and k != "type"}
        kept.append((layer, value))
    return _merge_model(agent_config_class(final), kept, path, lineage)
