"""The unification rule: every -D-reachable field merges the same way whichever layer supplies it."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from coder_eval.config.merge import (
    LAYER_ORDER,
    MODEL_DECLARATIONS,
    Layer,
    LayerName,
    MergeField,
    MergeStrategy,
    default_strategy,
    field_strategy,
    merge_extra,
    resolve_root,
)
from coder_eval.config.resolve import resolve_task
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.agent import agent_config_class, registered_agent_kinds
from coder_eval.models.base import StrictModel
from coder_eval.models.experiment import ExperimentDefinition
from coder_eval.models.partial import is_agent_annotation, nested_model
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.models.task import TaskDefinition
from coder_eval.models.task_parts import RunLimits

Leaf = tuple[str, MergeStrategy]


def _leaves(model: type[BaseModel], prefix: str) -> list[Leaf]:
    """Every settable leaf path under `model`, with the strategy the resolver uses for it."""
    out: list[Leaf] = []
    for name, info in model.model_fields.items():
        strategy = field_strategy(model, name)
        child = nested_model(info.annotation)
        path = f"{prefix}.{name}"
        if strategy == "deep" and child is not None and not is_agent_annotation(info.annotation):
            out.extend(_leaves(child, path))
        else:
            out.append((path, strategy))
    return out


def _agent_leaves() -> list[tuple[str, str, MergeStrategy]]:
    rows = []
    for kind in registered_agent_kinds():
        for path, strategy in _leaves(agent_config_class(kind), "agent"):
            if path != "agent.type":
                rows.append((kind, path, strategy))
    return rows


ROOT_LEAVES = _leaves(RunLimits, "run_limits") + _leaves(SandboxConfig, "sandbox")
AGENT_LEAVES = _agent_leaves()


def _nest(path: str, value: Any, kind: str | None = None) -> dict[str, Any]:
    parts = path.split(".")
    data: dict[str, Any] = {parts[-1]: value}
    for part in reversed(parts[1:-1]):
        data = {part: data}
    if kind is not None:
        data["type"] = kind
    return {parts[0]: data}


def _get(data: dict[str, Any], path: str) -> Any:
    node: Any = data
    for part in path.split("."):
        node = node[part]
    return node


def _sample(strategy: MergeStrategy, layer: str) -> Any:
    if strategy in ("append", "append_task_first"):
        return [f"item-from-{layer}"]
    if strategy in ("deep", "shallow"):
        return {f"key-{layer}": layer}
    return f"value-from-{layer}"


def _expected_pair(strategy: MergeStrategy, lo: str, hi: str) -> Any:
    if strategy == "append":
        return [f"item-from-{lo}", f"item-from-{hi}"]
    if strategy == "append_task_first":
        first, second = (hi, lo) if hi == "task" else (lo, hi)
        return [f"item-from-{first}", f"item-from-{second}"]
    if strategy in ("deep", "shallow"):
        return {f"key-{lo}": lo, f"key-{hi}": hi}
    return f"value-from-{hi}"


def _resolve(path: str, strategy: MergeStrategy, names: tuple[str, ...], kind: str | None = None) -> Any:
    layers = [Layer(name, _nest(path, _sample(strategy, name), kind), f"detail-{name}") for name in names]  # type: ignore[arg-type]
    merged, lineage = resolve_root(TaskDefinition, layers)
    return _get(merged, path), lineage


def test_leaf_enumeration_is_not_empty() -> None:
    paths = {p for p, _ in ROOT_LEAVES} | {p for _, p, _ in AGENT_LEAVES}
    assert {
        "run_limits.max_turns",
        "sandbox.driver",
        "sandbox.docker.image",
        "agent.model",
        "agent.sdk_options",
    } <= paths
    assert {"sandbox.limits.timeout", "sandbox.template_sources"} <= paths
    assert len(ROOT_LEAVES) >= 20


@pytest.mark.parametrize("layer", LAYER_ORDER)
@pytest.mark.parametrize(("path", "strategy"), ROOT_LEAVES)
def test_root_field_from_any_single_layer(path: str, strategy: MergeStrategy, layer: str) -> None:
    value, lineage = _resolve(path, strategy, (layer,))
    assert value == _sample(strategy, layer)
    assert lineage_sources(lineage, path) == {layer}


@pytest.mark.parametrize(("lo", "hi"), list(itertools.combinations(LAYER_ORDER, 2)))
@pytest.mark.parametrize(("path", "strategy"), ROOT_LEAVES)
def test_root_field_from_two_layers(path: str, strategy: MergeStrategy, lo: str, hi: str) -> None:
    value, _ = _resolve(path, strategy, (lo, hi))
    assert value == _expected_pair(strategy, lo, hi)
    reversed_value, _ = _resolve(path, strategy, (hi, lo))  # list order of layers never matters
    assert reversed_value == value


@pytest.mark.parametrize("layer", LAYER_ORDER)
@pytest.mark.parametrize(("kind", "path", "strategy"), AGENT_LEAVES)
def test_agent_field_from_any_single_layer(kind: str, path: str, strategy: MergeStrategy, layer: str) -> None:
    value, lineage = _resolve(path, strategy, (layer,), kind)
    assert value == _sample(strategy, layer)
    assert lineage_sources(lineage, path) == {layer}


@pytest.mark.parametrize(("lo", "hi"), list(itertools.combinations(LAYER_ORDER, 2)))
@pytest.mark.parametrize(("kind", "path", "strategy"), AGENT_LEAVES)
def test_agent_field_from_two_layers(kind: str, path: str, strategy: MergeStrategy, lo: str, hi: str) -> None:
    value, _ = _resolve(path, strategy, (lo, hi), kind)
    assert value == _expected_pair(strategy, lo, hi)


def lineage_sources(lineage: dict[str, Any], path: str) -> set[str]:
    """Sources recorded at or below `path`."""
    return {
        src
        for key, entry in lineage.items()
        if key == path or key.startswith(path + ".")
        for src in entry["source"].split(",")
    }


def test_declared_strategies() -> None:
    assert field_strategy(SandboxConfig, "template_sources") == "append_task_first"
    assert field_strategy(TaskDefinition, "pre_run") == "append"
    assert field_strategy(TaskDefinition, "post_run") == "append_task_first"
    assert field_strategy(SandboxConfig, "docker") == "deep"
    assert field_strategy(SandboxConfig, "ignore_patterns") == "replace"
    assert field_strategy(RunLimits, "max_turns") == "replace"
    assert field_strategy(agent_config_class("claude-code"), "sdk_options") == "deep"
    assert field_strategy(agent_config_class("claude-code"), "allowed_tools") == "replace"
    assert all(s in {"append", "append_task_first", "shallow"} for s in MODEL_DECLARATIONS.values())


def test_markers_on_the_model_win_over_type_defaults() -> None:
    from typing import Annotated

    from pydantic import Field

    class Sample(StrictModel):
        via_annotated: Annotated[list[str], MergeField("append")] = Field(default_factory=list)
        via_extra: list[str] = Field(default_factory=list, json_schema_extra=merge_extra("append_task_first"))
        plain: list[str] = Field(default_factory=list)

    assert field_strategy(Sample, "via_annotated") == "append"
    assert field_strategy(Sample, "via_extra") == "append_task_first"
    assert field_strategy(Sample, "plain") == "replace"
    assert default_strategy(dict[str, Any]) == "deep"
    assert default_strategy(RunLimits | None) == "deep"
    assert default_strategy(int | None) == "replace"


def test_env_passthrough_extra_appends_in_layer_order() -> None:
    layers = [
        Layer(name, {"sandbox": {"docker": {"env_passthrough_extra": [name.upper()]}}})
        for name in ("variant", "baseline", "task", "experiment")
    ]
    merged, lineage = resolve_root(TaskDefinition, layers)  # type: ignore[arg-type]
    assert merged["sandbox"]["docker"]["env_passthrough_extra"] == ["BASELINE", "EXPERIMENT", "TASK", "VARIANT"]
    assert lineage["sandbox.docker.env_passthrough_extra"]["source"] == "baseline,experiment,task,variant"


def test_template_sources_task_first() -> None:
    def src(tag: str) -> dict[str, Any]:
        return {"type": "template_dir", "path": tag}

    layers = [
        Layer("baseline", {"sandbox": {"template_sources": [src("b")]}}),
        Layer("experiment", {"sandbox": {"template_sources": [src("e")]}}),
        Layer("task", {"sandbox": {"template_sources": [src("t1"), src("t2")]}}),
        Layer("variant", {"sandbox": {"template_sources": [src("v")]}}),
    ]
    merged, _ = resolve_root(TaskDefinition, layers)
    assert [s["path"] for s in merged["sandbox"]["template_sources"]] == ["t1", "t2", "b", "e", "v"]


def test_deep_merge_keeps_siblings() -> None:
    layers = [
        Layer("experiment", {"agent": {"sdk_options": {"effort": "high", "extra": {"a": 1, "b": 2}}}}),
        Layer("task", {"sandbox": {"docker": {"image": "python:3.12", "network": "none"}}}),
        Layer("variant", {"agent": {"sdk_options": {"max_thinking_tokens": 5, "extra": {"b": 3}}}}),
        Layer("cli", {"sandbox": {"docker": {"network": "bridge"}}}),
    ]
    merged, lineage = resolve_root(TaskDefinition, layers)
    assert merged["agent"]["sdk_options"] == {"effort": "high", "extra": {"a": 1, "b": 3}, "max_thinking_tokens": 5}
    assert merged["sandbox"]["docker"] == {"image": "python:3.12", "network": "bridge"}
    assert lineage["sandbox.docker.image"]["source"] == "task"
    assert lineage["sandbox.docker.network"]["source"] == "cli"
    assert lineage["agent.sdk_options.extra.a"]["source"] == "experiment"
    assert lineage["agent.sdk_options.extra.b"]["source"] == "variant"


def test_null_replaces_a_deep_field_and_resets_non_nullable() -> None:
    layers = [
        Layer("task", {"sandbox": {"docker": {"image": "x"}}, "agent": {"plugins": [{"path": "/p"}]}}),
        Layer("variant", {"sandbox": {"docker": None}, "agent": {"plugins": None}}),
    ]
    merged, lineage = resolve_root(TaskDefinition, layers)
    assert merged["sandbox"]["docker"] is None
    assert "plugins" not in merged["agent"]  # non-nullable list: back to its default
    assert lineage["sandbox.docker"]["source"] == "variant"


def test_python_null_from_any_layer_opts_out_and_a_higher_mapping_opts_back_in() -> None:
    """`sandbox.python` defaults to an own environment; null is kept as the explicit opt-out."""
    task = Layer("task", {"sandbox": {"python": {"env_packages": ["pytest"]}}})
    merged, _ = resolve_root(TaskDefinition, [task, Layer("variant", {"sandbox": {"python": None}})])
    assert merged["sandbox"]["python"] is None
    assert SandboxConfig.model_validate(merged["sandbox"]).python is None
    back = [task, Layer("variant", {"sandbox": {"python": None}}), Layer("cli", {"sandbox": {"python": {}}})]
    merged, _ = resolve_root(TaskDefinition, back)
    assert SandboxConfig.model_validate(merged["sandbox"]).python is not None
    assert SandboxConfig.model_validate({}).python is not None


def test_agent_type_from_highest_layer_drops_other_kinds_keys() -> None:
    layers = [
        Layer("baseline", {"agent": {"type": "claude-code", "ignore_patterns": [], "permission_mode": "plan"}}),
        Layer("task", {"agent": {"type": "codex", "model": "gpt-5"}}),
    ]
    merged, _ = resolve_root(TaskDefinition, layers)
    assert merged["agent"] == {"type": "codex", "permission_mode": "plan", "model": "gpt-5"}


TASK = {
    "task_id": "t",
    "description": "d",
    "initial_prompt": "p",
    "success_criteria": [{"type": "file_exists", "path": "a", "description": "a"}],
}


def _experiment(**defaults: Any) -> ExperimentDefinition:
    return ExperimentDefinition.model_validate(
        {"experiment_id": "e", "defaults": defaults, "variants": [{"variant_id": "v"}]}
    )


@pytest.mark.parametrize("layer", ["baseline", "experiment", "task", "variant", "cli"])
def test_validated_resolution_from_each_layer(layer: LayerName, tmp_path: Path) -> None:
    """A real value lands in the validated TaskDefinition whichever layer supplies it."""
    part = {"agent": {"model": "m-x", "sdk_options": {"effort": "high"}}, "run_limits": {"max_turns": 7}}
    empty = _experiment()
    baseline = _experiment(**part) if layer == "baseline" else empty
    experiment = _experiment(**part) if layer == "experiment" else _experiment(repeats=1)
    task_doc = {**TASK, **part} if layer == "task" else TASK
    variant_doc: dict[str, Any] = {"variant_id": "v", **(part if layer == "variant" else {})}
    experiment = experiment.model_copy(update={"variants": [experiment.variants[0].model_validate(variant_doc)]})
    cli = Layer("cli", part, "-D") if layer == "cli" else None
    task = LoadedTask(TaskDefinition.model_validate(task_doc), tmp_path / "t.yaml")
    resolved = resolve_task(
        task, experiment=experiment, variant=experiment.variants[0], baseline=baseline, cli=cli, experiment_dir=tmp_path
    )
    agent = resolved.definition.agent
    assert agent is not None and agent.model == "m-x"
    assert getattr(agent, "sdk_options", None) == {"effort": "high"}
    assert resolved.definition.run_limits.max_turns == 7
    assert resolved.lineage["agent.model"]["source"] == layer
    assert resolved.lineage["run_limits.max_turns"]["source"] == layer
    assert resolved.lineage["run_limits.max_usd"]["source"] == "default"
