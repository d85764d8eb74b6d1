"""`-D path=value` / `--set`: typed values, schema paths with did-you-mean, aliases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder_eval.config.overrides import build_cli_layer, collect_overrides, parse_assignment, parse_value
from coder_eval.config.resolve import resolve_task
from coder_eval.errors import TaskConfigError, UsageError
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.experiment import ExperimentDefinition
from coder_eval.models.task import TaskDefinition


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("30", 30),
        ("1.5", 1.5),
        ("true", True),
        ("false", False),
        ("null", None),
        ("[Read, Write]", ["Read", "Write"]),
        ('{"effort": "high", "n": 2}', {"effort": "high", "n": 2}),
        ("claude-opus-5", "claude-opus-5"),
        ("2024-01-01", "2024-01-01"),
        ("", ""),
    ],
)
def test_values_are_typed(raw: str, expected: Any) -> None:
    assert parse_value(raw) == expected


def test_bad_value_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot read override value"):
        parse_value("[unclosed")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("agent.modle=x", "did you mean 'model'"),
        ("run_limits.max_turn=3", "did you mean 'max_turns'"),
        ("sandbox.dockr.image=x", "did you mean 'docker'"),
        ("sandbox.docker.imag=x", "did you mean 'image'"),
        ("task_id=x", "cannot be overridden"),
        ("agnt.model=x", "did you mean 'agent'"),
        ("agent=x", "name a field under agent"),
        ("run_limits.max_turns.x=1", "has no sub-fields"),
        ("agent.model", "expected path=value"),
    ],
)
def test_bad_paths(text: str, fragment: str) -> None:
    with pytest.raises(UsageError, match=fragment):
        parse_assignment(text)


def test_free_form_and_nested_paths_are_accepted() -> None:
    layer = build_cli_layer(
        [
            "agent.sdk_options.effort=high",
            "sandbox.docker.image=img",
            "run_limits.max_turns=30",
            "sandbox.limits.timeout=5",
        ]
    )
    assert layer is not None and layer.name == "cli"
    assert layer.data == {
        "agent": {"sdk_options": {"effort": "high"}},
        "sandbox": {"docker": {"image": "img"}, "limits": {"timeout": 5}},
        "run_limits": {"max_turns": 30},
    }
    assert layer.detail_for("sandbox.docker.image") == "-D sandbox.docker.image=img"


def test_aliases_map_to_paths() -> None:
    layer = build_cli_layer([], model="opus", driver="docker")
    assert layer is not None
    assert layer.data == {"agent": {"model": "opus"}, "sandbox": {"driver": "docker"}}
    assert layer.detail_for("agent.model") == "--model opus"


@pytest.mark.parametrize(("flag", "path"), [("model", "agent.model"), ("driver", "sandbox.driver")])
def test_alias_and_d_on_same_path_is_an_error(flag: str, path: str) -> None:
    with pytest.raises(UsageError, match="both set"):
        collect_overrides([f"{path}=x"], **{flag: "y"})


def test_type_flag_loses_to_d_without_error() -> None:
    layer = build_cli_layer(["agent.type=codex"], agent_type="none")
    assert layer is not None and layer.data["agent"]["type"] == "codex"


def test_later_d_wins() -> None:
    layer = build_cli_layer(["run_limits.max_turns=3", "run_limits.max_turns=4"])
    assert layer is not None and layer.data["run_limits"]["max_turns"] == 4


def test_no_overrides_is_no_layer() -> None:
    assert build_cli_layer([]) is None


TASK = {
    "task_id": "t",
    "description": "d",
    "initial_prompt": "p",
    "agent": {"type": "claude-code"},
    "success_criteria": [{"type": "file_exists", "path": "a", "description": "a"}],
}
EXPERIMENT = ExperimentDefinition.model_validate({"experiment_id": "e", "variants": [{"variant_id": "v"}]})


def _resolve(sets: list[str], tmp_path: Path, **kwargs: Any) -> Any:
    task = LoadedTask(TaskDefinition.model_validate(TASK), tmp_path / "t.yaml")
    return resolve_task(
        task,
        experiment=EXPERIMENT,
        variant=EXPERIMENT.variants[0],
        baseline=EXPERIMENT,
        cli=build_cli_layer(sets, **kwargs),
        experiment_dir=tmp_path,
    )


def test_overrides_reach_the_resolved_task(tmp_path: Path) -> None:
    resolved = _resolve(["run_limits.max_turns=30", "agent.allowed_tools=[Read]"], tmp_path, model="opus")
    assert resolved.definition.run_limits.max_turns == 30
    assert resolved.definition.agent.allowed_tools == ["Read"]
    assert resolved.definition.agent.model == "opus"
    assert resolved.lineage["agent.model"] == {"value": "opus", "source": "cli", "source_detail": "--model opus"}


def test_agent_path_checked_against_resolved_type(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"thinking_level.*claude-code"):
        _resolve(["agent.thinking_level=high"], tmp_path)
    resolved = _resolve(["agent.thinking_level=high"], tmp_path, agent_type="antigravity")
    assert resolved.definition.agent.type == "antigravity"


def test_sdk_key_check_applies_after_merge(tmp_path: Path) -> None:
    with pytest.raises(TaskConfigError, match="sdk_options"):
        _resolve(["agent.sdk_options.model=x"], tmp_path)


def test_bad_typed_value_names_the_flag(tmp_path: Path) -> None:
    with pytest.raises(TaskConfigError) as info:
        _resolve(["run_limits.max_turns=abc"], tmp_path)
    text = str(info.value)
    assert "run_limits.max_turns" in text and "-D run_limits.max_turns=abc" in text


def test_driver_alias_validated(tmp_path: Path) -> None:
    assert _resolve([], tmp_path, driver="docker").definition.sandbox.driver == "docker"
    with pytest.raises(TaskConfigError, match=r"sandbox\.driver"):
        _resolve([], tmp_path, driver="vm")
