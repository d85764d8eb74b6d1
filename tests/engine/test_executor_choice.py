"""Choosing an executor: the registry names, the Ray settings parser, and what happens without Ray."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from typer.testing import CliRunner

from coder_eval.cli.app import app
from coder_eval.cluster.settings import parse_resource, ray_settings
from coder_eval.engine.executors import EXECUTORS, get_executor
from coder_eval.errors import UsageError


def test_both_executors_are_registered() -> None:
    assert {"local", "ray"} <= set(EXECUTORS.names())
    assert get_executor("local").hosts_gateways is False


def test_unknown_executor_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="local"):
        get_executor("slurm")


def test_resources_per_unit_and_per_agent_kind() -> None:
    settings = ray_settings("10.0.0.1:6379", 2.0, 512, ["gpu=1", "claude-code:claude_bin=1"], False)
    assert settings.resolved_address == "10.0.0.1:6379"
    assert settings.resources.for_agent("none") == {"gpu": 1.0}
    assert settings.resources.for_agent("claude-code") == {"gpu": 1.0, "claude_bin": 1.0}
    assert settings.resources.memory_mb == 512


@pytest.mark.parametrize("bad", ["gpu", "gpu=", "gpu=0", "=1", "gpu=lots"])
def test_bad_resource_names_the_option_and_the_form(bad: str) -> None:
    with pytest.raises(UsageError, match=r"--ray-resource.*NAME=AMOUNT"):
        parse_resource(bad)


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "ray" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


@pytest.mark.usefixtures("no_ray")
def test_ray_executor_without_ray_says_how_to_install_it() -> None:
    with pytest.raises(UsageError, match=r"coder-eval\[ray\]"):
        get_executor("ray")


@pytest.mark.usefixtures("no_ray")
def test_plan_says_when_ray_is_missing(tmp_path: Any) -> None:
    task = tmp_path / "t.yaml"
    task.write_text(
        "task_id: t\ndescription: d\nagent: {type: none}\n"
        "success_criteria: [{type: file_exists, path: a, description: a}]\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["plan", str(task), "--executor", "ray"])
    assert "coder-eval[ray]" in result.output
    assert "1 of 1 task files valid" in result.output


def test_ray_options_need_the_ray_executor(tmp_path: Any) -> None:
    result = CliRunner().invoke(app, ["run", str(tmp_path), "--ray-address", "1.2.3.4:1"])
    assert result.exit_code == 2
    assert "--ray-* options need --executor ray" in result.output
