"""Table-driven tests for the agent registry, config-class registry, create_agent and the plugin loader.

Every test claims fresh kind names so the process-wide registry never holds a collision
another test could trip over.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from coder_eval import plugins
from coder_eval.agents.base import Agent, create_agent
from coder_eval.agents.registry import AgentRegistry
from coder_eval.models import agent as agent_models
from coder_eval.models.agent import (
    BaseAgentConfig,
    agent_config_class,
    parse_agent_config,
    register_agent_config,
    registered_agent_kinds,
)
from coder_eval.models.agent_configs import BUILTIN_AGENT_CONFIGS, ClaudeCodeConfig, CodexConfig, NoAgentConfig


@pytest.fixture(autouse=True)
def _restore_registries() -> Iterator[None]:
    """Undo every registration a test makes: test kinds must not join the task schema's agent union."""
    agents, lazy = dict(AgentRegistry._agents), dict(AgentRegistry._lazy)
    configs = dict(agent_models._CONFIG_CLASSES)
    yield
    for live, saved in (
        (AgentRegistry._agents, agents),
        (AgentRegistry._lazy, lazy),
        (agent_models._CONFIG_CLASSES, configs),
    ):
        live.clear()
        live.update(saved)


def fresh_kind() -> str:
    return f"test-kind-{uuid.uuid4().hex[:12]}"


def config_class(name: str = "RegistryTestConfig") -> type[BaseAgentConfig]:
    return type(name, (BaseAgentConfig,), {"__module__": __name__})


class _StubAgent(Agent[Any]):
    async def start(self, working_directory: Path, **_: Any) -> None:
        self.working_directory = working_directory

    async def communicate(self, user_input: str, **_: Any) -> Any:
        raise NotImplementedError

    async def stop(self) -> None:
        self._mark_stopped()


def agent_class(name: str = "Agent") -> type[_StubAgent]:
    return type(name, (_StubAgent,), {"__module__": __name__})


# --- AgentRegistry.register -----------------------------------------------------------------------


def test_same_pair_twice_is_a_noop() -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    assert AgentRegistry.register(kind, cfg)(impl) is impl
    assert AgentRegistry.register(kind, cfg)(impl) is impl
    assert AgentRegistry.agent_class(kind) is impl
    assert agent_config_class(kind) is cfg
    assert kind in AgentRegistry.kinds()


Step = Callable[[str, type[BaseAgentConfig], type[Any]], None]


def _eager(kind: str, cfg: type[BaseAgentConfig], impl: type[Any]) -> None:
    AgentRegistry.register(kind, cfg)(impl)


def _schema(kind: str, cfg: type[BaseAgentConfig], impl: type[Any]) -> None:
    AgentRegistry.register_schema(kind, cfg)


def _lazy_to(target: str) -> Step:
    def step(kind: str, cfg: type[BaseAgentConfig], impl: type[Any]) -> None:
        AgentRegistry.register_lazy(kind, cfg, target)

    return step


CONFLICT_CASES = [
    pytest.param(_eager, "other-agent", "already provided by", id="eager-other-agent"),
    pytest.param(_eager, "other-config", "already registered with", id="eager-other-config"),
    pytest.param(_schema, "other-config", "already registered with", id="schema-other-config"),
    pytest.param(
        _lazy_to("some.module:Thing"), "other-agent", "already provided by some.module:Thing", id="lazy-eager"
    ),
    pytest.param(
        _lazy_to("some.module:Thing"), "other-config", "already (provided|registered)", id="lazy-other-config"
    ),
]


@pytest.mark.parametrize(("first", "second", "message"), CONFLICT_CASES)
def test_claiming_a_taken_kind_raises(first: Step, second: str, message: str) -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    first(kind, cfg, impl)
    other_cfg = config_class("OtherRegistryTestConfig") if second == "other-config" else cfg
    other_impl = agent_class("OtherAgent") if second == "other-agent" else impl
    with pytest.raises(ValueError, match=message):
        AgentRegistry.register(kind, other_cfg)(other_impl)
    assert agent_config_class(kind) is cfg  # nothing half-applied


def test_schema_then_implementation_is_allowed() -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    AgentRegistry.register_schema(kind, cfg)
    assert not AgentRegistry.has_implementation(kind)
    assert AgentRegistry.agent_class(kind) is None
    AgentRegistry.register(kind, cfg)(impl)
    assert AgentRegistry.has_implementation(kind)
    assert AgentRegistry.agent_class(kind) is impl


@pytest.mark.parametrize(
    ("first_target", "second_target", "raises"),
    [
        pytest.param("a.b:C", "a.b:C", False, id="same-target-noop"),
        pytest.param("a.b:C", "a.b:D", True, id="other-target"),
    ],
)
def test_register_lazy_twice(first_target: str, second_target: str, raises: bool) -> None:
    kind, cfg = fresh_kind(), config_class()
    AgentRegistry.register_lazy(kind, cfg, first_target)
    if raises:
        with pytest.raises(ValueError, match="already has an implementation"):
            AgentRegistry.register_lazy(kind, cfg, second_target)
    else:
        AgentRegistry.register_lazy(kind, cfg, second_target)
    assert AgentRegistry.has_implementation(kind)


def test_register_lazy_after_eager_raises() -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    AgentRegistry.register(kind, cfg)(impl)
    with pytest.raises(ValueError, match="already has an implementation"):
        AgentRegistry.register_lazy(kind, cfg, "elsewhere:Agent")
    assert AgentRegistry.agent_class(kind) is impl


# --- lazy resolution ------------------------------------------------------------------------------


@pytest.fixture
def lazy_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An importable, not yet imported module defining LazyAgent; yields its name."""
    name = f"lazy_agent_{uuid.uuid4().hex[:12]}"
    source = "from coder_eval.agents.none_agent import NoneAgent\n\n\nclass LazyAgent(NoneAgent):\n    pass\n"
    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_register_lazy_resolves_on_first_use(lazy_module: str) -> None:
    kind, cfg = fresh_kind(), config_class()
    AgentRegistry.register_lazy(kind, cfg, f"{lazy_module}:LazyAgent")
    assert lazy_module not in sys.modules  # registering imports nothing
    assert AgentRegistry.has_implementation(kind)
    assert agent_config_class(kind) is cfg
    resolved = AgentRegistry.agent_class(kind)
    assert lazy_module in sys.modules
    assert resolved is not None and resolved.__name__ == "LazyAgent"
    assert AgentRegistry.agent_class(kind) is resolved  # cached, not re-imported


def test_same_lazy_pair_again_after_resolution_is_a_noop(lazy_module: str) -> None:
    kind, cfg = fresh_kind(), config_class()
    target = f"{lazy_module}:LazyAgent"
    AgentRegistry.register_lazy(kind, cfg, target)
    resolved = AgentRegistry.agent_class(kind)
    AgentRegistry.register_lazy(kind, cfg, target)
    assert AgentRegistry.agent_class(kind) is resolved
    with pytest.raises(ValueError, match="already has an implementation"):
        AgentRegistry.register_lazy(kind, cfg, f"{lazy_module}:Other")


def test_eager_register_of_the_lazy_target_is_a_noop(lazy_module: str) -> None:
    kind, cfg = fresh_kind(), config_class()
    AgentRegistry.register_lazy(kind, cfg, f"{lazy_module}:LazyAgent")
    lazy_cls = __import__(lazy_module).LazyAgent
    assert AgentRegistry.register(kind, cfg)(lazy_cls) is lazy_cls
    assert AgentRegistry.agent_class(kind) is lazy_cls


def test_lazy_kind_cannot_be_shadowed_before_first_use(lazy_module: str) -> None:
    kind, cfg = fresh_kind(), config_class()
    AgentRegistry.register_lazy(kind, cfg, f"{lazy_module}:LazyAgent")
    impostor = agent_class("Impostor")
    with pytest.raises(ValueError):
        AgentRegistry.register(kind, cfg)(impostor)
    resolved = AgentRegistry.agent_class(kind)
    assert resolved is not None and resolved.__name__ == "LazyAgent"


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
        with pytest.raises(ValueError, match="refusing to replace"):
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
    AgentRegistry.register(kind, cfg)(impl)
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
    AgentRegistry.register(kind, cfg)(impl)
    with pytest.raises(TypeError):
        create_agent(kind, NoAgentConfig(), task_id="t")


@pytest.mark.parametrize("kind", ["codex", "antigravity", "opencode", "pi"])
def test_create_agent_schema_only_kind(kind: str) -> None:
    if AgentRegistry.has_implementation(kind):
        pytest.skip(f"{kind} has an implementation in this installation")
    with pytest.raises(LookupError, match="no implementation"):
        create_agent(kind, BUILTIN_AGENT_CONFIGS[kind](), task_id="t")


def test_create_agent_schema_only_plugin_kind() -> None:
    kind, cfg = fresh_kind(), config_class()
    AgentRegistry.register_schema(kind, cfg)
    with pytest.raises(LookupError, match="no implementation"):
        create_agent(kind, cfg(), task_id="t")


# --- plugins --------------------------------------------------------------------------------------


def test_builtins_registered() -> None:
    plugins.ensure_plugins_loaded()
    assert set(BUILTIN_AGENT_CONFIGS) <= set(AgentRegistry.kinds())
    assert AgentRegistry.has_implementation("none")
    for kind, cls in BUILTIN_AGENT_CONFIGS.items():
        assert agent_config_class(kind) is cls


def test_load_plugins_runs_once(monkeypatch: pytest.MonkeyPatch) -> None:
    plugins.ensure_plugins_loaded()
    calls: list[Any] = []
    monkeypatch.setattr("coder_eval.agents.builtins.register_builtins", calls.append)
    plugins.load_plugins()
    plugins.ensure_plugins_loaded()
    assert calls == []


class _EntryPoint:
    def __init__(self, name: str, hook: Callable[[Any], None]) -> None:
        self.name = name
        self._hook = hook

    def load(self) -> Callable[[Any], None]:
        return self._hook


def _broken_hook(registry: Any) -> None:
    raise RuntimeError("plugin exploded")


def test_broken_third_party_plugin_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    kind, cfg, impl = fresh_kind(), config_class(), agent_class()
    good = _EntryPoint("good", lambda registry: registry.register(kind, cfg)(impl))
    builtin = _EntryPoint("coder_eval", _broken_hook)  # the built-in entry is skipped: builtins are called directly
    monkeypatch.setattr(plugins, "_loaded", False)
    monkeypatch.setattr(plugins, "failed_plugins", {})
    monkeypatch.setattr(
        "importlib.metadata.entry_points", lambda group: [builtin, _EntryPoint("bad", _broken_hook), good]
    )
    plugins.load_plugins()
    assert plugins.failed_plugins == {"bad": "RuntimeError: plugin exploded"}
    assert AgentRegistry.agent_class(kind) is impl
    assert plugins._loaded
