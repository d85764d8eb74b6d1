"""Table-driven tests for resolving a task's agent (with `--type`) and expanding run units."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from coder_eval.agents.antigravity import AntigravityConfig
from coder_eval.agents.claude_code import ClaudeCodeConfig
from coder_eval.agents.codex import CodexConfig
from coder_eval.agents.none_agent import NoAgentConfig
from coder_eval.agents.opencode import OpenCodeConfig
from coder_eval.engine.units import RunUnit, expand_units, resolve_agent
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.agent import DEFAULT_AGENT_KIND
from coder_eval.models.task import TaskDefinition


def loaded(agent: dict[str, Any] | None = None, task_id: str = "demo") -> LoadedTask:
    doc: dict[str, Any] = {
        "task_id": task_id,
        "description": "a task",
        "initial_prompt": "do the thing",
        "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "out.txt exists"}],
    }
    if agent is not None:
        doc["agent"] = agent
    return LoadedTask(TaskDefinition.model_validate(doc), Path("task.yaml"))


CLAUDE = {
    "type": "claude-code",
    "model": "claude-sonnet-4-5",
    "allowed_tools": ["Bash", "Read"],
    "setting_sources": [],
    "sdk_options": {},
}

RETYPE_CASES = [
    pytest.param(
        CLAUDE,
        "none",
        NoAgentConfig,
        {"model": "claude-sonnet-4-5", "allowed_tools": ["Bash", "Read"]},
        ["setting_sources", "sdk_options"],
        id="claude-to-none",
    ),
    pytest.param(
        {"type": "antigravity", "model": "gemini-2.5-pro", "thinking_level": "high", "permission_mode": "plan"},
        "codex",
        CodexConfig,
        {"model": "gemini-2.5-pro", "permission_mode": "plan"},
        ["thinking_level"],
        id="antigravity-to-codex",
    ),
    pytest.param(
        {"type": "codex", "model": "gpt-5", "disallowed_tools": ["WebFetch"]},
        "claude-code",
        ClaudeCodeConfig,
        {"model": "gpt-5", "disallowed_tools": ["WebFetch"]},
        [],
        id="codex-to-claude-nothing-dropped",
    ),
    pytest.param(
        {"type": "opencode", "variant": "high", "pure": False, "system_prompt": "be brief"},
        "none",
        NoAgentConfig,
        {"system_prompt": "be brief"},
        ["pure", "variant"],
        id="opencode-to-none",
    ),
    pytest.param(
        {"type": "none", "plugins": [{"path": "plug"}], "system_prompt": "x", "system_prompt_mode": "replace"},
        "claude-code",
        ClaudeCodeConfig,
        {"plugins": [{"path": "plug"}], "system_prompt": "x", "system_prompt_mode": "replace"},
        [],
        id="shared-nested-fields-kept",
    ),
    pytest.param(
        None,
        "none",
        NoAgentConfig,
        {},
        [],
        id="no-agent-retyped",
    ),
]


@pytest.mark.parametrize(("agent", "override", "cls", "kept", "dropped"), RETYPE_CASES)
def test_type_override(
    caplog: pytest.LogCaptureFixture,
    agent: dict[str, Any] | None,
    override: str,
    cls: type,
    kept: dict[str, Any],
    dropped: list[str],
) -> None:
    task = loaded(agent)
    with caplog.at_level(logging.INFO, logger="coder_eval.engine.units"):
        config = resolve_agent(task, override)
    assert type(config) is cls and config.type == override
    assert config.model_dump(exclude_unset=True, exclude={"type"}) == kept
    for name in dropped:
        assert name not in type(config).model_fields
    drop_logs = [r.getMessage() for r in caplog.records if "drops agent fields" in r.getMessage()]
    if dropped:
        (line,) = drop_logs
        assert f"--type {override}" in line and ", ".join(sorted(dropped)) in line
    else:
        assert drop_logs == []


def test_override_does_not_mutate_the_task() -> None:
    task = loaded(CLAUDE)
    original = task.definition.agent
    resolve_agent(task, "none")
    assert task.definition.agent is original
    assert isinstance(original, ClaudeCodeConfig) and original.setting_sources == []


def test_defaults_of_the_new_kind_apply() -> None:
    config = resolve_agent(loaded({"type": "codex"}), "antigravity")
    assert isinstance(config, AntigravityConfig) and config.thinking_level == "medium"


@pytest.mark.parametrize(
    ("agent", "override"),
    [
        pytest.param(CLAUDE, None, id="no-override"),
        pytest.param(CLAUDE, "claude-code", id="same-type"),
        pytest.param({"type": "opencode", "variant": "low"}, "opencode", id="same-type-opencode"),
        pytest.param({"type": "none"}, None, id="none-no-override"),
    ],
)
def test_same_type_is_a_noop(agent: dict[str, Any], override: str | None) -> None:
    task = loaded(agent)
    assert resolve_agent(task, override) is task.definition.agent


@pytest.mark.parametrize(
    ("override", "cls"),
    [
        pytest.param(None, ClaudeCodeConfig, id="default"),
        pytest.param(DEFAULT_AGENT_KIND, ClaudeCodeConfig, id="default-named"),
        pytest.param("opencode", OpenCodeConfig, id="other-kind"),
    ],
)
def test_task_without_agent_gets_the_default_kind(override: str | None, cls: type) -> None:
    task = loaded(None)
    assert task.definition.agent is None
    config = resolve_agent(task, override)
    assert type(config) is cls
    assert config.type == (override or DEFAULT_AGENT_KIND)
    assert config.model is None and config.allowed_tools is None


def test_unknown_override_names_the_known_kinds() -> None:
    with pytest.raises(ValueError, match="unknown agent type 'nonesuch'"):
        resolve_agent(loaded(CLAUDE), "nonesuch")


# --- expand_units ---------------------------------------------------------------------------------


@pytest.mark.parametrize("repeats", [1, 2, 5])
def test_replicate_indexes(repeats: int) -> None:
    units = expand_units([loaded(task_id="a")], repeats=repeats)
    assert [u.replicate_index for u in units] == list(range(repeats))
    assert all(u.variant_id == "default" and u.task_id == "a" for u in units)


@pytest.mark.parametrize(
    ("repeats", "expected"),
    [
        pytest.param(1, [("a", 0), ("b", 0)], id="once"),
        pytest.param(3, [("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1), ("b", 2)], id="thrice-grouped-by-task"),
        pytest.param(0, [], id="zero-repeats"),
    ],
)
def test_units_for_several_tasks(repeats: int, expected: list[tuple[str, int]]) -> None:
    units = expand_units([loaded(task_id="a"), loaded(task_id="b")], repeats=repeats)
    assert [(u.task_id, u.replicate_index) for u in units] == expected


def test_expand_units_applies_override_and_variant(tmp_path: Path) -> None:
    units = expand_units([loaded(CLAUDE)], repeats=2, type_override="none", variant_id="v-fast")
    assert all(isinstance(u.agent, NoAgentConfig) and u.agent.model == "claude-sonnet-4-5" for u in units)
    assert [u.directory(tmp_path) for u in units] == [
        tmp_path / "v-fast" / "demo" / "00",
        tmp_path / "v-fast" / "demo" / "01",
    ]


def test_unit_directory_for_dataset_row(tmp_path: Path) -> None:
    task = LoadedTask(loaded().definition, Path("task.yaml"), suite_id="suite", row_id="row-7")
    unit = RunUnit(task, resolve_agent(task), replicate_index=12)
    assert unit.task_id == "suite/row-7"
    assert unit.directory(tmp_path) == tmp_path / "default" / "suite" / "row-7" / "12"
