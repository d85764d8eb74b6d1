"""The agent registry: kind declarations, the config-class registry, create_agent and the plugin loader.

Every test claims fresh kind names, and the registries are restored after each test, so test kinds
never join the task schema's agent union.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from coder_eval import plugins
from coder_eval.agents.base import Agent, Turn, TurnEnd
from coder_eval.agents.claude_code import ClaudeCodeConfig
from coder_eval.agents.codex import CodexConfig
from coder_eval.agents.factory import create_agent
from coder_eval.agents.kind import AgentKind
from coder_eval.agents.none_agent import NoAgentConfig
from coder_eval.agents.registry import AGENTS, agent_kind, declare_agent, register_agent
from coder_eval.models.agent import (
    AGENT_CONFIGS,
    BaseAgentConfig,
    agent_config_class,
    parse_agent_config,
    register_agent_config,
    registered_agent_kinds,
)
from coder_eval.models.registry import RegistrationError

BUILTIN_KINDS = {
    "claude-code": ClaudeCodeConfig,
    "codex": CodexConfig,
    "none": NoAgentConfig,
}


@pytest.fixture(autouse=True)
def _restore_registries() -> Iterator[None]:
    with AGENTS.scratch(), AGENT_CONFIGS.scratch():
        yield


def fresh_kind() -> str:
    return f"test-kind-{uuid.uuid4().hex[:12]}"


def config_class(name: str = "RegistryTestConfig") -> type[BaseAgentConfig]:
    return type(name, (BaseAgentConfig,), {"__module__": __name__})


class _StubAgent(Agent[Any]):
    async def run_turn(self, turn: Turn) -> TurnEnd:
        return TurnEnd()


def agent_class(name: str = "Agent") -> type[_StubAgent]:
    return type(name, (_StubAgent,), {"__module__": __name__})


# --- register_agent / declare_agent ----------------------------------------------------------------


def test_same_registration_twice_is_a_noop() -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    assert register_agent(kind, config=cfg)(impl) is impl
    assert register_agent(kind, config=cfg)(impl) is impl
    assert agent_kind(kind).load() is impl
    assert agent_config_class(kind) is cfg
    assert impl.kind.name == kind
    assert kind in AGENTS.names() and kind in registered_agent_kinds()


def test_registration_carries_the_declared_capabilities() -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    register_agent(kind, config=cfg, protocols=("anthropic",), cooperative_stop=True, gateway_env={"X": "{token}"})(
        impl
    )
    declared = agent_kind(kind)
    assert declared.protocols == ("anthropic",) and declared.cooperative_stop
    assert impl(cfg(type=kind), task_id="t").supports_cooperative_stop


Step = Callable[[str, type[BaseAgentConfig], type[Any]], None]


def _eager(kind: str, cfg: type[BaseAgentConfig], impl: type[Any]) -> None:
    register_agent(kind, config=cfg)(impl)


def _schema(kind: str, cfg: type[BaseAgentConfig], impl: type[Any]) -> None:
    declare_agent(AgentKind(name=kind, config=cfg))


def _lazy(kind: str, cfg: type[BaseAgentConfig], impl: type[Any]) -> None:
    declare_agent(AgentKind(name=kind, config=cfg, implementation="some.module:Thing"))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param(_eager, "other-agent", id="eager-other-agent"),
        pytest.param(_eager, "other-config", id="eager-other-config"),
        pytest.param(_schema, "other-config", id="schema-other-config"),
        pytest.param(_schema, "other-agent", id="schema-then-implementation"),
        pytest.param(_lazy, "other-agent", id="lazy-eager"),
    ],
)
def test_claiming_a_taken_kind_raises(first: Step, second: str) -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    first(kind, cfg, impl)
    other_cfg = config_class("OtherRegistryTestConfig") if second == "other-config" else cfg
    other_impl = agent_class("OtherAgent") if second == "other-agent" else impl
    with pytest.raises(RegistrationError, match="already provided by"):
        register_agent(kind, config=other_cfg)(other_impl)
    assert agent_config_class(kind) is cfg  # nothing half-applied


@pytest.fixture
def lazy_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An importable, not yet imported module defining LazyAgent; yields its name."""
    name = f"lazy_agent_{uuid.uuid4().hex[:12]}"
    source = "from coder_eval.agents.none_impl import NoneAgent\n\n\nclass LazyAgent(NoneAgent):\n    pass\n"
    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_a_declared_implementation_is_imported_on_first_use(lazy_module: str) -> None:
    kind, cfg = fresh_kind(), config_class()
    declare_agent(AgentKind(name=kind, config=cfg, implementation=f"{lazy_module}:LazyAgent"))
    assert lazy_module not in sys.modules  # declaring imports nothing
    assert agent_kind(kind).has_implementation
    resolved = agent_kind(kind).load()
    assert lazy_module in sys.modules
    assert resolved is not None and resolved.__name__ == "LazyAgent"
    assert agent_kind(kind).load() is resolved  # cached, not re-imported


# --- the config-class registry --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("same_class", "raises"),
    [pytest.param(True, False, id="same-class-noop"), pytest.param(False, True, id="other-class-raises")],
)
def test_register_agent_config_twice(same_class: bool, raises: bool) -> None:
    kind, cfg = fresh_kind(), config_class()
    register_agent_config(kind, cfg)
    second = cfg if same_class else config_class("SecondRegistryTestConfig")
    if raises:
        with pytest.raises(ValueError, match="already provided by"):
            register_agent_config(kind, second)
    else:
        register_agent_config(kind, second)
    assert agent_config_class(kind) is cfg
    assert kind in registered_agent_kinds()


@pytest.mark.parametrize(
    ("kind", "hint"),
    [
        pytest.param("claude-cod", "Did you mean 'claude-code'?", id="close-match"),
        pytest.param("zzzz-nothing-like-it", "Known types:", id="no-close-match"),
    ],
)
def test_unknown_kind(kind: str, hint: str) -> None:
    with pytest.raises(ValueError, match=f"unknown agent type {kind!r}") as info:
        agent_config_class(kind)
    assert hint in str(info.value)


PARSE_CASES = [
    pytest.param({"type": "none"}, NoAgentConfig, id="none"),
    pytest.param({}, ClaudeCodeConfig, id="default-kind"),
    pytest.param({"type": "codex", "model": "gpt-5"}, CodexConfig, id="codex-schema-only"),
]


@pytest.mark.parametrize(("raw", "cls"), PARSE_CASES)
def test_parse_agent_config(raw: dict[str, Any], cls: type[BaseAgentConfig]) -> None:
    assert type(parse_agent_config(raw)) is cls


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param("codex", "must be a mapping", id="not-a-mapping"),
        pytest.param({"type": 3}, "must be a string", id="type-not-a-string"),
        pytest.param({"type": "nope-kind"}, "unknown agent type", id="unknown"),
    ],
)
def test_parse_agent_config_rejects(raw: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_agent_config(raw)


# --- create_agent ---------------------------------------------------------------------------------


def test_create_agent_none() -> None:
    agent = create_agent("none", NoAgentConfig(type="none"), task_id="t-1", env={"A": "1"})
    assert type(agent).__name__ == "NoneAgent"
    assert (agent.task_id, agent.env, agent.state) == ("t-1", {"A": "1"}, "created")
    assert isinstance(agent.config, NoAgentConfig)


def test_create_agent_registered_kind() -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    register_agent(kind, config=cfg)(impl)
    agent = create_agent(kind, cfg(type=kind), task_id="t")
    assert type(agent) is impl and agent.env == {}


WRONG_CONFIG_CASES = [
    pytest.param("none", lambda: ClaudeCodeConfig(), id="none-given-claude-config"),
    pytest.param("none", lambda: BaseAgentConfig(type="none"), id="none-given-base-config"),
    pytest.param("none", lambda: CodexConfig(), id="none-given-codex-config"),
]


@pytest.mark.parametrize(("kind", "make"), WRONG_CONFIG_CASES)
def test_create_agent_wrong_config_class(kind: str, make: Callable[[], BaseAgentConfig]) -> None:
    with pytest.raises(TypeError, match=f"agent type {kind!r} needs a NoAgentConfig"):
        create_agent(kind, make(), task_id="t")


def test_create_agent_wrong_config_for_plugin_kind() -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    register_agent(kind, config=cfg)(impl)
    with pytest.raises(TypeError):
        create_agent(kind, NoAgentConfig(), task_id="t")


def test_create_agent_schema_only_plugin_kind() -> None:
    kind, cfg = fresh_kind(), config_class()
    declare_agent(AgentKind(name=kind, config=cfg))
    with pytest.raises(LookupError, match="no implementation"):
        create_agent(kind, cfg(), task_id="t")


# --- plugins --------------------------------------------------------------------------------------


def test_builtins_registered() -> None:
    assert set(BUILTIN_KINDS) <= set(AGENTS.names())
    assert agent_kind("none").has_implementation and agent_kind("none").model_less
    for kind, cls in BUILTIN_KINDS.items():
        assert agent_config_class(kind) is cls


def test_load_plugins_runs_once(monkeypatch: pytest.MonkeyPatch) -> None:
    plugins.load_plugins()
    calls: list[Any] = []
    monkeypatch.setattr("coder_eval.builtins.register", calls.append)
    plugins.load_plugins()
    assert calls == []
