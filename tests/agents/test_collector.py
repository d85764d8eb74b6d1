"""Table-driven tests for EventCollector: scripted event streams reduced to a TurnRecord."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import (
    AgentEndEvent,
    AgentStartEvent,
    AssistantMessageEvent,
    TextChunkEvent,
    ToolEndEvent,
    ToolStartEvent,
    TurnEndEvent,
    TurnStartEvent,
    UsageEvent,
    safe_emit,
)
from coder_eval.models.telemetry import (
    AssistantMessage,
    ReconciliationMessage,
    TokenUsage,
    TurnRecord,
    UserMessage,
)

T0 = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
BUCKETS = ("uncached_input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def at(ms: float) -> datetime:
    return T0 + timedelta(milliseconds=ms)


def usage(a: int = 0, b: int = 0, c: int = 0, d: int = 0, **extra: Any) -> TokenUsage:
    return TokenUsage(
        uncached_input_tokens=a, output_tokens=b, cache_creation_input_tokens=c, cache_read_input_tokens=d, **extra
    )


def collect(events: list[Any], *, ended_ms: float = 10_000, **kwargs: Any) -> TurnRecord:
    collector = EventCollector(iteration=1)
    for event in events:
        collector(event)
    return collector.build_turn_record(ended_at=at(ended_ms), **kwargs)


def start(prompt: str = "do it", model: str | None = "m-1") -> AgentStartEvent:
    return AgentStartEvent(agent_type="scripted", prompt=prompt, model=model, at=T0)


def tool_start(tid: str, ms: float, name: str = "Bash", parent: str | None = None, **params: Any) -> ToolStartEvent:
    return ToolStartEvent(tool_use_id=tid, tool_name=name, parameters=params, parent_tool_use_id=parent, at=at(ms))


def tool_end(tid: str, ms: float, status: str = "success", summary: str | None = None) -> ToolEndEvent:
    return ToolEndEvent(tool_use_id=tid, status=status, result_summary=summary, at=at(ms))  # type: ignore[arg-type]


def message(u: TokenUsage, parent: str | None = None, content: str = "") -> AssistantMessageEvent:
    return AssistantMessageEvent(content=content, model="m-1", usage=u, parent_tool_use_id=parent, at=T0)


def bucket_sums(record: TurnRecord) -> dict[str, int]:
    sums = dict.fromkeys(BUCKETS, 0)
    for m in record.messages:
        if isinstance(m, AssistantMessage | ReconciliationMessage):
            for bucket in BUCKETS:
                sums[bucket] += getattr(m.token_usage, bucket)
    return sums


# --- the prompt and the transcript ----------------------------------------------------------------


def test_user_message_comes_first() -> None:
    record = collect([start("fix the bug"), message(usage(1, 1)), message(usage(2, 2))])
    assert isinstance(record.messages[0], UserMessage)
    assert record.messages[0].content == "fix the bug"
    assert record.messages[0].timestamp == T0
    assert record.user_input == "fix the bug"
    assert [type(m) for m in record.messages[1:]] == [AssistantMessage, AssistantMessage]


@pytest.mark.parametrize(
    ("ctor_prompt", "event_prompt", "expected"),
    [
        pytest.param("", "from event", "from event", id="event-prompt"),
        pytest.param("from ctor", "", "from ctor", id="empty-event-keeps-ctor"),
        pytest.param("from ctor", "from event", "from event", id="event-wins"),
    ],
)
def test_prompt_source(ctor_prompt: str, event_prompt: str, expected: str) -> None:
    collector = EventCollector(iteration=3, prompt=ctor_prompt)
    collector(start(event_prompt))
    record = collector.build_turn_record(ended_at=at(1))
    assert record.user_input == expected and record.messages[0].content == expected  # type: ignore[union-attr]
    assert record.iteration == 3


# --- tool calls -----------------------------------------------------------------------------------

TOOL_CASES = [
    pytest.param(
        [tool_start("a", 0), tool_end("a", 250)],
        [("a", "success", 250.0, 1)],
        id="one-pair",
    ),
    pytest.param(
        [tool_start("a", 0), tool_start("b", 10), tool_end("b", 30), tool_end("a", 100)],
        [("a", "success", 100.0, 1), ("b", "success", 20.0, 2)],
        id="nested-sorted-by-start",
    ),
    pytest.param(
        [tool_start("a", 0), tool_end("a", 5, "error"), tool_start("b", 6), tool_end("b", 7, "unknown")],
        [("a", "error", 5.0, 1), ("b", "unknown", 1.0, 2)],
        id="statuses-kept",
    ),
    pytest.param(
        [tool_start("a", 0), tool_start("b", 1), tool_end("a", 4)],
        [("a", "success", 4.0, 1), ("b", "unresolved", 9_999.0, 2)],
        id="unclosed-is-unresolved",
    ),
    pytest.param(
        [tool_start("a", 100), tool_end("a", 50)],
        [("a", "success", 0.0, 1)],
        id="negative-duration-clamped",
    ),
    pytest.param(
        [tool_end("ghost", 5), tool_start("a", 0), tool_end("a", 1), tool_end("a", 2)],
        [("a", "success", 1.0, 1)],
        id="unknown-and-repeated-end-ignored",
    ),
    pytest.param([], [], id="no-tools"),
]


@pytest.mark.parametrize(("events", "expected"), TOOL_CASES)
def test_tool_calls(events: list[Any], expected: list[tuple[str, str, float, int]]) -> None:
    record = collect([start(), *events])
    got = [(c.tool_use_id, c.status, c.duration_ms, c.sequence) for c in record.commands]
    assert got == [(tid, status, pytest.approx(ms), seq) for tid, status, ms, seq in expected]


def test_tool_fields_carried() -> None:
    record = collect(
        [
            start(),
            tool_start("t1", 0, "Task", prompt="explore"),
            tool_start("t2", 1, "Read", parent="t1", file_path="a.py"),
            tool_end("t2", 2, summary="12 lines"),
            tool_end("t1", 3, summary="done"),
        ]
    )
    outer, inner = record.commands
    assert (outer.tool_name, outer.parameters, outer.parent_tool_use_id) == ("Task", {"prompt": "explore"}, None)
    assert (inner.tool_name, inner.parameters, inner.parent_tool_use_id) == ("Read", {"file_path": "a.py"}, "t1")
    assert (outer.result_summary, inner.result_summary) == ("done", "12 lines")


def test_orphan_closed_at_turn_end_keeps_its_fields() -> None:
    record = collect([start(), tool_start("x", 1_000, "Bash", parent="p", command="sleep 99")], ended_ms=4_000)
    (cmd,) = record.commands
    assert cmd.status == "unresolved"
    assert cmd.duration_ms == pytest.approx(3_000)
    assert cmd.parameters == {"command": "sleep 99"} and cmd.parent_tool_use_id == "p"
    assert cmd.result_summary is None


def test_visible_turn_count_is_resolved_calls() -> None:
    collector = EventCollector(iteration=1)
    for event in [start(), tool_start("a", 0), tool_start("b", 0), tool_end("a", 1)]:
        collector(event)
    assert collector.visible_turn_count == 1
    collector.close_orphans(at(2))
    assert collector.visible_turn_count == 2


# --- agent output and assistant messages ----------------------------------------------------------

TEXT_CASES = [
    pytest.param([("Hello", None), (" world", None)], "Hello world", id="top-level-joined"),
    pytest.param([("Hi", None), ("sub-agent says", "t1"), ("!", None)], "Hi!", id="sub-agent-excluded"),
    pytest.param([("only sub", "t1")], "", id="all-sub-agent"),
    pytest.param([], "", id="silent"),
]


@pytest.mark.parametrize(("chunks", "expected"), TEXT_CASES)
def test_agent_output(chunks: list[tuple[str, str | None]], expected: str) -> None:
    record = collect([start(), *(TextChunkEvent(text=t, parent_tool_use_id=p) for t, p in chunks)])
    assert record.agent_output == expected


@pytest.mark.parametrize(
    ("parents", "count"),
    [
        pytest.param([], 0, id="none"),
        pytest.param([None], 1, id="one"),
        pytest.param([None, None, None], 3, id="three"),
        pytest.param([None, "t1", "t1"], 3, id="sub-agent-messages-counted"),
    ],
)
def test_assistant_turn_count(parents: list[str | None], count: int) -> None:
    # a UsageEvent differing from the message sum adds a reconciliation entry, which is never counted
    events = [start(), *(message(usage(1), parent=p) for p in parents), UsageEvent(usage=usage(1_000))]
    record = collect(events)
    assert record.assistant_turn_count == count
    assert sum(isinstance(m, ReconciliationMessage) for m in record.messages) == 1


def test_assistant_message_fields() -> None:
    record = collect([start(), message(usage(3, 4), parent="t9", content="thinking")])
    msg = record.messages[1]
    assert isinstance(msg, AssistantMessage)
    assert (msg.content, msg.model, msg.parent_tool_use_id) == ("thinking", "m-1", "t9")
    assert msg.token_usage == usage(3, 4)


# --- token reconciliation -------------------------------------------------------------------------

MESSAGES = [usage(100, 20, 5, 300), usage(50, 10, 0, 400)]  # sums to (150, 30, 5, 700)

RECONCILE_CASES = [
    pytest.param(usage(150, 30, 5, 700), None, id="equal-no-entry"),
    pytest.param(usage(662, 30, 5, 700), (512, 0, 0, 0), id="unbilled-prompt-slice"),
    pytest.param(usage(200, 45, 25, 1_000), (50, 15, 20, 300), id="every-bucket-short"),
    pytest.param(usage(140, 30, 5, 700), (-10, 0, 0, 0), id="stream-over-reports"),
    pytest.param(usage(0, 0, 0, 0), (-150, -30, -5, -700), id="zero-total"),
    pytest.param(usage(150, 30, 5, 700, reasoning_tokens=99), None, id="reasoning-not-a-bucket"),
    pytest.param(usage(150, 30, 5, 701, total_cost_usd=1.5), (0, 0, 0, 1), id="cost-stays-on-turn"),
]


@pytest.mark.parametrize(("total", "residual"), RECONCILE_CASES)
def test_reconciliation(total: TokenUsage, residual: tuple[int, int, int, int] | None) -> None:
    record = collect([start(), *(message(u) for u in MESSAGES), UsageEvent(usage=total)])
    entries = [m for m in record.messages if isinstance(m, ReconciliationMessage)]
    if residual is None:
        assert entries == []
    else:
        (entry,) = entries
        assert record.messages[-1] is entry
        assert tuple(getattr(entry.token_usage, b) for b in BUCKETS) == residual
        assert entry.token_usage.total_cost_usd is None
    assert record.token_usage == total
    assert bucket_sums(record) == {b: getattr(total, b) for b in BUCKETS}


@pytest.mark.parametrize(
    ("totals", "expected"),
    [
        pytest.param([usage(1), usage(150, 30, 5, 700)], None, id="last-usage-wins-equal"),
        pytest.param([usage(150, 30, 5, 700), usage(160, 30, 5, 700)], (10, 0, 0, 0), id="last-usage-wins-diff"),
    ],
)
def test_usage_event_replaces_earlier(totals: list[TokenUsage], expected: tuple[int, ...] | None) -> None:
    record = collect([start(), *(message(u) for u in MESSAGES), *(UsageEvent(usage=t) for t in totals)])
    entries = [m for m in record.messages if isinstance(m, ReconciliationMessage)]
    assert [tuple(getattr(e.token_usage, b) for b in BUCKETS) for e in entries] == (
        [] if expected is None else [expected]
    )
    assert record.token_usage == totals[-1]


def test_no_usage_event_uses_message_sum() -> None:
    record = collect([start(), *(message(u) for u in MESSAGES)])
    assert not any(isinstance(m, ReconciliationMessage) for m in record.messages)
    assert record.token_usage == MESSAGES[0] + MESSAGES[1]


def test_usage_event_model_fills_model_used() -> None:
    record = collect([start(model=None), UsageEvent(usage=usage(), model="from-usage")])
    assert record.model_used == "from-usage"


# --- turns, end status, timing --------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 4])
def test_num_turns_counts_turn_starts(n: int) -> None:
    events: list[Any] = [start()]
    for i in range(n):
        events += [TurnStartEvent(index=i), TurnEndEvent(index=i)]
    assert collect(events).num_turns == n


END_CASES = [
    pytest.param(None, False, False, None, id="no-end-event"),
    pytest.param("ok", False, False, "ok", id="ok"),
    pytest.param("max_turns", False, True, "max_turns", id="max-turns"),
    pytest.param("timeout", False, False, "timeout", id="timeout"),
    pytest.param("stopped", False, False, "stopped", id="stopped"),
    pytest.param("ok", True, True, "ok", id="flag-from-caller"),
]


@pytest.mark.parametrize(("status", "flag", "exhausted", "stop_reason"), END_CASES)
def test_end_status(status: str | None, flag: bool, exhausted: bool, stop_reason: str | None) -> None:
    events: list[Any] = [start()]
    if status is not None:
        events.append(AgentEndEvent(status=status))  # type: ignore[arg-type]
    record = collect(events, max_turns_exhausted=flag)
    assert record.max_turns_exhausted is exhausted
    assert record.result_summary is not None and record.result_summary.stop_reason == stop_reason


def test_crash_recorded() -> None:
    record = collect(
        [start(), tool_start("a", 0), AgentEndEvent(status="crashed", error="boom")],
        crashed=True,
        crash_reason="sdk died",
    )
    assert record.crashed and record.crash_reason == "sdk died"
    assert record.result_summary is not None
    assert (record.result_summary.is_error, record.result_summary.result) == (True, "boom")
    assert record.commands[0].status == "unresolved"


def test_timing() -> None:
    record = collect([start()], ended_ms=2_500)
    assert record.timestamp == T0
    assert record.duration_seconds == pytest.approx(2.5)


def test_timing_without_start_event() -> None:
    record = EventCollector(iteration=1).build_turn_record(ended_at=at(5))
    assert record.timestamp == at(5) and record.duration_seconds == 0.0
    assert record.messages == [] and record.commands == []


# --- forwarding -----------------------------------------------------------------------------------

STREAM = [
    start(),
    TurnStartEvent(index=0),
    tool_start("a", 0),
    TextChunkEvent(text="hi"),
    tool_end("a", 1),
    message(usage(1, 1)),
    UsageEvent(usage=usage(2, 1)),
    TurnEndEvent(index=0),
    AgentEndEvent(status="ok"),
]


def _raises_always(event: Any) -> None:
    raise RuntimeError("renderer broke")


def _raises_on_tools(event: Any) -> None:
    if isinstance(event, ToolStartEvent | ToolEndEvent):
        raise ValueError("cannot render tools")


@pytest.mark.parametrize(
    "failing",
    [pytest.param(None, id="healthy-callback"), pytest.param(_raises_always, id="always-raises")],
)
def test_forward_receives_every_event(failing: Any) -> None:
    seen: list[Any] = []

    def forward(event: Any) -> None:
        seen.append(event)
        if failing is not None:
            failing(event)

    collector = EventCollector(iteration=1, forward=forward)
    for event in STREAM:
        collector(event)
    assert seen == STREAM
    record = collector.build_turn_record(ended_at=at(10))
    assert len(record.commands) == 1 and record.agent_output == "hi" and record.num_turns == 1


@pytest.mark.parametrize("callback", [_raises_always, _raises_on_tools, None])
def test_raising_callback_never_breaks_collection(callback: Any) -> None:
    plain = EventCollector(iteration=1)
    guarded = EventCollector(iteration=1, forward=callback)
    for event in STREAM:
        plain(event)
        guarded(event)
    assert guarded.build_turn_record(ended_at=at(10)) == plain.build_turn_record(ended_at=at(10))


@pytest.mark.parametrize(
    "exc", [RuntimeError("x"), ValueError("y"), KeyError("z"), ZeroDivisionError()], ids=lambda e: type(e).__name__
)
def test_safe_emit_swallows(exc: Exception) -> None:
    def callback(event: Any) -> None:
        raise exc

    safe_emit(callback, object())
    safe_emit(None, object())
