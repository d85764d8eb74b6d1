"""The names and behaviours the reference system's extending guide documents, in process.

Agents: `AgentRegistry.register(kind, config_class)` (decorator and call forms, anti-shadow), the
`Agent` ABC driven through `communicate` with `_begin_turn` / `_end_turn_ok` / `_mark_stopped`,
`pending_turn` on a crash, the lenient events and the EventCollector, `supports_cooperative_stop`,
`create_agent`'s TypeError. Criteria: bare `@register_criterion` on `BaseCriterion[spec_cls]`, both
`_check_impl` signatures, `_check_impl_async`, the exactly-one rule, `check` final, an exception
becoming a 0.0 result. Pricing: the rules of the guide's section 3.
"""

from __future__ import annotations

import asyncio
import types
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest

from coder_eval.agent import Agent
from coder_eval.agents.factory import create_agent
from coder_eval.agents.reference_spi import ReferenceAgentAdapter
from coder_eval.agents.registry import AGENTS, AgentRegistry, agent_kind
from coder_eval.criteria.base import BaseCriterion, CheckContext, register_criterion
from coder_eval.criteria.grading import grade_one
from coder_eval.criteria.registry import CHECKERS, checker_for
from coder_eval.errors.agent import AgentCrashError
from coder_eval.errors.timeout import TurnTimeoutError
from coder_eval.models import BaseAgentConfig, CriterionResult, TokenUsage, TurnRecord
from coder_eval.models.agent import AGENT_CONFIGS
from coder_eval.models.criteria import CRITERION_SPECS, BaseSuccessCriterion, parse_criterion
from coder_eval.pricing import PRICING, ModelPricing, calculate_cost, register_pricing
from coder_eval.streaming import EventCollector
from coder_eval.streaming.events import (
    AgentEndEvent,
    AgentStartEvent,
    ToolEndEvent,
    ToolStartEvent,
    TurnEndEvent,
    TurnStartEvent,
)


@pytest.fixture(autouse=True)
def _scratch() -> Iterator[None]:
    with AGENTS.scratch(), AGENT_CONFIGS.scratch(), CHECKERS.scratch(), CRITERION_SPECS.scratch(), PRICING.scratch():
        yield


def fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


class _Sandbox:
    """The bits of a SandboxEnvironment the adapter reads."""

    def __init__(self, root: Path) -> None:
        self.workspace = root

    def path_entries(self) -> list[str]:
        return ["/opt/mocks"]


def guide_agent(kind: str, *, cooperative: bool = False, crash: bool = False) -> tuple[type[Any], type[Any]]:
    """An agent class written the way the guide's checklist describes."""
    config = type(
        "GuideConfig",
        (BaseAgentConfig,),
        {"__annotations__": {"type": str}, "type": kind, "__module__": __name__},
    )

    class GuideAgent(Agent[Any]):
        supports_cooperative_stop: ClassVar[bool] = cooperative

        async def start(self, working_directory, *, env_path_prepend=None, plugin_tools_dir=None):  # type: ignore[no-untyped-def,override]
            self.started_in = (working_directory, env_path_prepend)

        async def communicate(
            self, user_input, *, stream_callback=None, timeout=None, max_turns=None, should_stop=None
        ):  # type: ignore[no-untyped-def,override]
            self._begin_turn()
            collector = EventCollector()
            collector(AgentStartEvent(model="m-1"))
            try:
                collector(TurnStartEvent())
                collector(ToolStartEvent(tool_id="t1", name="Bash", tool_input={"command": "ls"}))
                collector(ToolEndEvent(tool_id="t1", output="a.txt\n" * 200, status="completed"))
                collector(ToolStartEvent(tool_use_id="t2", tool_name="Read", parameters={"path": "x"}))
                collector(TurnEndEvent(token_usage=TokenUsage(uncached_input_tokens=10, output_tokens=5)))
                if crash:
                    self.pending_turn = collector.build_turn_record(crashed=True, crash_reason="boom")
                    raise AgentCrashError("boom")
                record = collector.build_turn_record(user_input=user_input, agent_output="done")
                self._end_turn_ok()
                return record
            finally:
                collector(AgentEndEvent())

        async def stop(self):  # type: ignore[no-untyped-def,override]
            self._mark_stopped()

    return config, GuideAgent


# --- agents -----------------------------------------------------------------------------------------


def test_register_call_and_decorator_forms_and_anti_shadow() -> None:
    kind = fresh("guide")
    config, impl = guide_agent(kind)
    AgentRegistry.register(kind, config)(impl)
    assert AgentRegistry.register(kind, config)(impl) is impl  # the same pair again: a no-op
    _, other = guide_agent(kind)
    with pytest.raises(ValueError, match="already provided"):
        AgentRegistry.register(kind, config)(other)
    second = fresh("guide")
    second_config, second_impl = guide_agent(second)
    decorated = AgentRegistry.register(second, second_config)(second_impl)
    assert agent_kind(second).load() is decorated
    assert impl.reference_spi and not ReferenceAgentAdapter.reference_spi


def test_registration_refuses_what_is_not_an_agent() -> None:
    with pytest.raises(TypeError, match=r"not a subclass of coder_eval\.agent\.Agent"):
        AgentRegistry.register(fresh("guide"), BaseAgentConfig)(object)


def test_create_agent_refuses_a_mismatched_config() -> None:
    kind = fresh("guide")
    config, impl = guide_agent(kind)
    AgentRegistry.register(kind, config)(impl)
    with pytest.raises(TypeError, match="needs a GuideConfig"):
        create_agent(kind, BaseAgentConfig())


@pytest.mark.parametrize("cooperative", [True, False])
def test_cooperative_stop_comes_from_the_class_attribute(cooperative: bool) -> None:
    kind = fresh("guide")
    config, impl = guide_agent(kind, cooperative=cooperative)
    AgentRegistry.register(kind, config)(impl)
    assert agent_kind(kind).cooperative_stop is cooperative
    agent = create_agent(kind, config(), task_id="t")
    assert agent.supports_cooperative_stop is cooperative


def test_a_turn_through_the_adapter(tmp_path: Path) -> None:
    kind = fresh("guide")
    config, impl = guide_agent(kind)
    AgentRegistry.register(kind, config)(impl)
    agent = create_agent(kind, config(), task_id="t", env={"A": "1"})
    assert isinstance(agent, ReferenceAgentAdapter)

    async def go() -> TurnRecord:
        await agent.start(_Sandbox(tmp_path))  # type: ignore[arg-type]
        record = await agent.communicate("hello")
        await agent.stop()
        return record

    record = asyncio.run(go())
    inner = agent.inner  # type: ignore[attr-defined]
    assert inner.started_in == (tmp_path, ["/opt/mocks"])
    assert inner.env == {"A": "1"} and inner.task_id == "t"
    assert (record.iteration, record.user_input, record.agent_output) == (1, "hello", "done")
    bash, read = record.commands
    assert (bash.tool_name, bash.status, bash.parameters) == ("Bash", "success", {"command": "ls"})
    assert len(bash.result_summary or "") == 500  # cut, not stored whole
    assert read.status == "unresolved"  # an orphaned tool is closed, not dropped
    assert record.token_usage.uncached_input_tokens == 10 and record.token_usage.output_tokens == 5
    assert record.model_used == "m-1" and record.num_turns == 1
    assert agent.iteration == 1 and inner.get_state() == "stopped"
    assert agent.environment_info()["agent_spi"] == "reference"


def test_a_crash_leaves_the_partial_turn_for_the_orchestrator(tmp_path: Path) -> None:
    kind = fresh("guide")
    config, impl = guide_agent(kind, crash=True)
    AgentRegistry.register(kind, config)(impl)
    agent = create_agent(kind, config(), task_id="t")

    async def go() -> None:
        await agent.start(_Sandbox(tmp_path))  # type: ignore[arg-type]
        await agent.communicate("hello")

    with pytest.raises(AgentCrashError, match="boom"):
        asyncio.run(go())
    partial = agent.pending_turn
    assert partial is not None and partial.crashed and partial.crash_reason == "boom"
    assert len(partial.commands) == 2
    agent.discard_pending_turn()
    assert agent.pending_turn is None


def test_an_unexpected_exception_becomes_a_crash_with_a_partial_turn(tmp_path: Path) -> None:
    kind = fresh("guide")
    config, base = guide_agent(kind)

    class Broken(base):  # type: ignore[misc,valid-type]
        async def communicate(self, user_input, **kwargs):  # type: ignore[no-untyped-def,override]
            self._begin_turn()
            raise KeyError("missing")

    AgentRegistry.register(kind, config)(Broken)
    agent = create_agent(kind, config())
    with pytest.raises(AgentCrashError, match="KeyError"):
        asyncio.run(agent.communicate("hi"))
    assert agent.pending_turn is not None and agent.pending_turn.crashed


def test_turn_timeout_error_is_a_timeout_in_the_agent_phase() -> None:
    from coder_eval.engine.agent_phase import _timeout_reason
    from coder_eval.models.task_parts import RunLimits

    assert "reported a turn timeout" in _timeout_reason(RunLimits(), TurnTimeoutError())


def test_lenient_events_map_onto_native_fields() -> None:
    start = ToolStartEvent(call_id="c", name="Edit", arguments={"f": 1})
    assert (start.tool_use_id, start.tool_name, start.parameters) == ("c", "Edit", {"f": 1})
    assert ToolEndEvent(id="c", is_error=True).status == "error"
    assert ToolEndEvent(id="c", status="failed").status == "error"
    assert AgentEndEvent(status="success").status == "ok"
    assert TurnStartEvent(turn=3).index == 3
    assert AgentStartEvent(user_input="p").prompt == "p"


def test_collector_usage_on_agent_end_is_the_total() -> None:
    collector = EventCollector()
    collector(TurnEndEvent(usage=TokenUsage(output_tokens=1)))
    collector(AgentEndEvent(usage=TokenUsage(output_tokens=7)))
    record = collector.build_turn_record(duration_seconds=2.5)
    assert record.token_usage.output_tokens == 7 and record.duration_seconds == 2.5
    # the message buckets still sum to the total: a reconciliation entry carries the difference
    assert sum(m.token_usage.output_tokens for m in record.messages if hasattr(m, "token_usage")) == 7


# --- criteria ---------------------------------------------------------------------------------------


def spec_model(kind: str) -> type[BaseSuccessCriterion]:
    return type(
        "GuideSpec",
        (BaseSuccessCriterion,),
        {"__annotations__": {"type": Literal[kind], "target": str}, "type": kind, "__module__": __name__},  # type: ignore[valid-type]
    )


def _ctx(tmp_path: Path) -> CheckContext:
    (tmp_path / "hello.txt").write_text("hi")
    return CheckContext(root=tmp_path, reference_dir=tmp_path / "ref", turns=[])


def _run(kind: str, tmp_path: Path, **fields: Any) -> CriterionResult:
    spec = parse_criterion({"type": kind, "description": "d", "target": "hello.txt", **fields})
    result, config_error = grade_one(spec, _ctx(tmp_path))
    assert config_error is None
    return result


def test_bare_register_with_the_older_signature(tmp_path: Path) -> None:
    kind = fresh("guide_c").replace("-", "_")
    spec_cls = spec_model(kind)

    @register_criterion
    class Checker(BaseCriterion[spec_cls]):  # type: ignore[valid-type]
        criterion_type = kind

        def _check_impl(self, criterion, sandbox, reference_code=None, *, turn_records=None, context=None):  # type: ignore[no-untyped-def,override]
            ok = (Path(sandbox.sandbox_dir) / criterion.target).is_file()
            assert turn_records == [] and context.reference_dir.name == "ref" and reference_code is None
            return CriterionResult(criterion_type=self.criterion_type, description="", score=1.0 if ok else 0.0)

    assert isinstance(checker_for(kind), Checker)
    result = _run(kind, tmp_path, pass_threshold=0.5, weight=2)
    assert result.score == 1.0
    assert (result.pass_threshold, result.weight, result.description) == (0.5, 2.0, "d")


def test_async_checker_with_the_newer_signature(tmp_path: Path) -> None:
    kind = fresh("guide_c").replace("-", "_")
    spec_cls = spec_model(kind)

    @register_criterion
    class Checker(BaseCriterion[spec_cls]):  # type: ignore[valid-type]
        criterion_type = kind

        async def _check_impl_async(self, criterion, sandbox, *, turn_records=None, context=None):  # type: ignore[no-untyped-def,override]
            files = sandbox.resolve_files("*.txt")
            return CriterionResult(criterion_type=kind, score=float(len(files)), details=f"{len(files)} files")

    assert _run(kind, tmp_path).score == 1.0


def test_a_checker_exception_scores_zero_with_the_error(tmp_path: Path) -> None:
    kind = fresh("guide_c").replace("-", "_")
    spec_cls = spec_model(kind)

    @register_criterion
    class Checker(BaseCriterion[spec_cls]):  # type: ignore[valid-type]
        criterion_type = kind

        def _check_impl(self, criterion, sandbox, *, turn_records=None, context=None):  # type: ignore[no-untyped-def,override]
            raise RuntimeError("plugin bug")

    result = _run(kind, tmp_path)
    assert result.score == 0.0 and result.error == "RuntimeError: plugin bug"


def test_exactly_one_hook_and_check_is_final() -> None:
    spec_cls = spec_model("guide_rules")
    base = BaseCriterion[spec_cls]  # type: ignore[valid-type]

    def define(name: str, body: dict[str, Any]) -> type[Any]:
        return types.new_class(name, (base,), exec_body=lambda ns: ns.update(body))

    with pytest.raises(TypeError, match="neither"):
        define("Neither", {})
    with pytest.raises(TypeError, match="both"):
        define("Both", {"_check_impl": lambda *a, **k: None, "_check_impl_async": lambda *a, **k: None})
    with pytest.raises(TypeError, match="final"):
        define("Final", {"_check_impl": lambda *a, **k: None, "check": lambda *a: None})
    family = types.new_class("Family", (base,), {"abstract": True})
    assert issubclass(family, BaseCriterion)


def test_bare_register_needs_a_type_and_a_spec() -> None:
    class NoType(BaseCriterion[spec_model("guide_x")]):  # type: ignore[misc]
        def _check_impl(self, criterion, sandbox, **kwargs):  # type: ignore[no-untyped-def,override]
            raise AssertionError

    with pytest.raises(TypeError, match="criterion_type"):
        register_criterion(NoType)


# --- pricing (section 3 of the guide) -------------------------------------------------------------


def test_pricing_rules_of_the_guide() -> None:
    model, free = fresh("guide-model"), fresh("guide-free")
    rates = {model: ModelPricing(3.0, 15.0, 3.75, 0.30), free: ModelPricing(0.0, 0.0, 0.0, 0.0)}
    register_pricing(rates)
    register_pricing(rates)  # identical rates: idempotent
    assert calculate_cost(model, 1_000_000, 0) == 3.0
    assert calculate_cost(model, 0, 0, cache_creation=1_000_000, cache_read=1_000_000) == pytest.approx(4.05)
    assert calculate_cost(f"eu.anthropic.{model}", 0, 1_000_000) == 15.0  # prefixes are normalized off
    assert calculate_cost(free, 10, 10) == 0.0  # a free model prices to 0, it does not fall through
    late = fresh("guide-late")
    with pytest.raises(ValueError):
        register_pricing({late: ModelPricing(1, 1, 1, 1), model: ModelPricing(9, 9, 9, 9)})
    assert calculate_cost(late, 1, 1) is None  # all-or-nothing: the late conflict registered nothing
    with pytest.raises(ValueError):
        register_pricing({"claude-sonnet-4-5": ModelPricing(1, 1, 1, 1)})  # a built-in rate is not replaced
