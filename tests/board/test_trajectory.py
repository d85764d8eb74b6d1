"""The trajectory diff's steps and alignment, on records built in memory."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from coder_eval.board.trajectory import diff_payload, normalize, unit_steps
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import AssistantMessage, CommandTelemetry, TokenUsage, TurnRecord

T0 = datetime(2026, 12, 1, 10, 0, 0, tzinfo=UTC)
ROOT = "/tmp/runs/r/.sandboxes/sbx-abc123"


def _call(n: int, kind: str, timed: bool = True, **params: Any) -> CommandTelemetry:
    return CommandTelemetry(
        tool_name=kind.title(),
        tool_kind=kind,
        parameters=params,
        status="success",
        duration_ms=10.0 * n,
        sequence=n,
        started_at=T0 + timedelta(seconds=n) if timed else None,
    )


def _reply(n: int, text: str, tokens: int) -> AssistantMessage:
    return AssistantMessage(
        content=text,
        token_usage=TokenUsage(uncached_input_tokens=tokens, output_tokens=1),
        timestamp=T0 + timedelta(seconds=n),
    )


def _unit(calls: list[CommandTelemetry], messages: list[AssistantMessage]) -> EvaluationResult:
    turn = TurnRecord(iteration=1, timestamp=T0, commands=calls, messages=messages)
    return EvaluationResult(
        task_id="t",
        variant_id="v",
        final_status=FinalStatus.SUCCESS,
        started_at=T0,
        duration_seconds=1.0,
        iterations=[turn],
        environment_info={"python_env": {"venv": "/work/ws-1/.venv"}},
    )


def test_a_units_own_workspace_path_is_taken_out() -> None:
    assert normalize(f"cat {ROOT}/src/a.py", []) == "cat src/a.py"
    assert normalize("/work/ws-1/out.txt", ["/work/ws-1/"]) == "out.txt"
    steps, timed = unit_steps(_unit([_call(1, "write", file_path="/work/ws-1/out.txt", content="x")], []))
    assert timed and steps[0].target == "out.txt" and steps[0].arguments["file_path"] == "out.txt"


def test_each_reply_counts_its_tokens_once_on_the_nearest_step() -> None:
    calls = [_call(1, "read", path="a"), _call(1, "read", path="b"), _call(3, "shell", command="make")]
    messages = [_reply(1, "", 100), _reply(3, "", 200), _reply(5, "All done.", 300)]
    steps, _ = unit_steps(_unit(calls, messages))
    assert [(s.kind, s.target, s.tokens) for s in steps] == [
        ("read", "a", 101),
        ("read", "b", None),  # the same reply asked for both reads
        ("shell", "make", 201),
        ("reply", "All done.", 301),
    ]
    assert [s.index for s in steps] == [1, 2, 3, 4] and steps[2].offset_s == 3.0


def test_a_record_without_start_times_keeps_its_order_but_no_tool_tokens() -> None:
    steps, timed = unit_steps(
        _unit([_call(1, "read", timed=False, path="a")], [_reply(1, "", 50), _reply(2, "Done.", 60)])
    )
    assert not timed and [(s.kind, s.tokens) for s in steps] == [("read", None), ("reply", 61)]


def test_alignment_names_what_changed_what_is_missing_and_where_they_diverged() -> None:
    left = _unit(
        [_call(1, "read", path="a"), _call(2, "write", path="out", content="42"), _call(3, "shell", command="pytest")],
        [],
    )
    right = _unit(
        [_call(1, "read", path="a"), _call(2, "shell", command="echo hm"), _call(3, "write", path="out", content="7")],
        [],
    )
    diff = diff_payload(("r1", "v/t/00", left), ("r2", "v/t/01", right))
    kinds = [row["kind"] for row in diff["rows"]]
    assert kinds == ["same", "only_right", "changed", "only_left"]
    assert diff["diverged_at"] == 1 and not diff["identical"]
    assert diff["rows"][2]["differs"] == ["content"]
    assert diff_payload(("r1", "a", left), ("r1", "a", left))["identical"]
    swapped = diff_payload(("r1", "a", left), ("r2", "b", _unit([_call(1, "search", pattern="x")], [])))
    assert swapped["rows"][0]["kind"] == "replaced"
