"""Refused is not executed: each agent's refusal becomes status `refused`, counted and never matched."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from claude_agent_sdk import AssistantMessage, ResultMessage, ToolResultBlock, ToolUseBlock, UserMessage

from coder_eval.agents.claude_code.events import SdkTranslator
from coder_eval.agents.codex.events import CodexTranslator
from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import ToolEndEvent, ToolStartEvent
from coder_eval.agents.gemini_cli.events import GeminiTranslator
from coder_eval.agents.opencode.events import _tool_status
from coder_eval.criteria.command_executed import CommandExecuted
from coder_eval.criteria.skill_triggered import SkillTriggered
from coder_eval.engine.tool_permissions import refusal_warnings
from coder_eval.models.agent import parse_agent_config
from coder_eval.models.criteria_commands import (
    CliCalledCriterion,
    CommandExecutedCriterion,
    SkillTriggeredCriterion,
)
from coder_eval.models.telemetry import CommandStatistics, CommandTelemetry, TurnRecord


def _record(collector: EventCollector) -> TurnRecord:
    return collector.build_turn_record(ended_at=datetime.now(UTC))


def _result(denials: list[dict[str, object]]) -> ResultMessage:
    return ResultMessage(
        subtype="success",
        duration_ms=1,
        duration_api_ms=1,
        is_error=False,
        num_turns=1,
        session_id="s",
        permission_denials=denials,
    )


def test_claude_codes_denial_list_marks_the_call_refused_even_when_the_text_is_unfamiliar() -> None:
    collector = EventCollector(iteration=1)
    translator = SdkTranslator(collector)
    translator.feed(AssistantMessage(content=[ToolUseBlock("t1", "Bash", {"command": "mycli go"})], model="m"))
    translator.feed(UserMessage(content=[ToolResultBlock("t1", "some new wording", is_error=True)]))
    assert collector.commands[0].status == "error"  # nothing yet says it was a refusal
    translator.feed(_result([{"tool_name": "Bash", "tool_use_id": "t1", "tool_input": {}}]))
    (command,) = _record(collector).commands
    assert command.status == "refused" and command.result_summary == "some new wording"


def test_claude_codes_refusal_wording_marks_it_at_once() -> None:
    collector = EventCollector(iteration=1)
    translator = SdkTranslator(collector)
    translator.feed(AssistantMessage(content=[ToolUseBlock("t1", "Bash", {"command": "curl x"})], model="m"))
    translator.feed(UserMessage(content=[ToolResultBlock("t1", "This command requires approval", is_error=True)]))
    assert collector.commands[0].status == "refused"


def test_a_late_refusal_for_an_unknown_call_changes_nothing() -> None:
    collector = EventCollector(iteration=1)
    collector(ToolStartEvent(tool_use_id="a", tool_name="Bash", parameters={"command": "ls"}))
    collector(ToolEndEvent(tool_use_id="a", status="success"))
    collector(ToolEndEvent(tool_use_id="zzz", status="refused"))
    assert [c.status for c in collector.commands] == ["success"]


def test_codex_declined_items_are_refused() -> None:
    collector = EventCollector(iteration=1)
    codex = CodexTranslator(collector, "m")
    item = {"id": "i1", "type": "command_execution", "command": "rm -rf /", "status": "declined"}
    codex.feed({"type": "item.started", "item": {**item, "status": "in_progress"}})
    codex.feed({"type": "item.completed", "item": item})
    assert collector.commands[0].status == "refused"


@pytest.mark.parametrize(("kind", "status"), [("policy_violation", "refused"), ("invalid_params", "error")])
def test_gemini_policy_denials_are_refused_other_errors_are_errors(kind: str, status: str) -> None:
    collector = EventCollector(iteration=1)
    gemini = GeminiTranslator(collector)
    gemini.feed({"type": "tool_use", "tool_id": "g1", "tool_name": "write_file", "parameters": {"file_path": "x"}})
    gemini.feed({"type": "tool_result", "tool_id": "g1", "status": "error", "error": {"type": kind, "message": "no"}})
    assert collector.commands[0].status == status


def test_opencode_permission_rejections_are_refused() -> None:
    rejected = {"status": "error", "error": "The user rejected permission to use this specific tool call."}
    assert _tool_status(rejected) == "refused"
    assert _tool_status({"status": "error", "error": "file not found"}) == "error"


def _cmd(status: str, tool: str = "Bash", **params: object) -> CommandTelemetry:
    return CommandTelemetry(
        tool_name=tool, tool_kind="shell", parameters=params or {"command": "mycli go"}, status=status
    )


class _Ctx:
    def __init__(self, commands: list[CommandTelemetry]) -> None:
        self.turns = [TurnRecord(iteration=1, commands=commands)]


def test_command_executed_never_counts_a_refused_call_and_says_so() -> None:
    spec = CommandExecutedCriterion(type="command_executed", command_pattern="mycli", description="d")
    result = CommandExecuted().evaluate(spec, _Ctx([_cmd("refused")]))  # type: ignore[arg-type]
    assert result.score == 0.0 and "refused" in (result.details or "")
    result = CommandExecuted().evaluate(spec, _Ctx([_cmd("refused"), _cmd("success")]))  # type: ignore[arg-type]
    assert result.score == 1.0


def test_skill_triggered_never_counts_a_refused_skill_call() -> None:
    spec = SkillTriggeredCriterion(type="skill_triggered", skill_name="greet", expected_skill="greet", description="d")
    refused = _cmd("refused", tool="Skill", skill="greet")
    result = SkillTriggered().evaluate(spec, _Ctx([refused]))  # type: ignore[arg-type]
    assert result.score == 0.0 and "refused" in (result.details or "")


def test_command_stats_count_refusals() -> None:
    stats = CommandStatistics.from_turns([TurnRecord(iteration=1, commands=[_cmd("refused"), _cmd("success")])])
    assert stats.refused_commands == 1 and stats.refused_by_tool == {"Bash": 1}
    assert stats.success_rate == 0.5  # a refused call did not succeed


def test_refusal_warnings_name_the_starved_criterion_and_the_fix() -> None:
    cli = CliCalledCriterion(type="cli_called", tool="mycli", description="d")
    bare = parse_agent_config({"type": "claude-code"})
    (warning,) = refusal_warnings([cli], bare)
    assert "success_criteria[0] cli_called" in warning and "allowed_tools" in warning
    allowed = parse_agent_config({"type": "claude-code", "allowed_tools": ["Bash(mycli:*)"]})
    assert refusal_warnings([cli], allowed) == []
    planning = parse_agent_config({"type": "codex", "permission_mode": "plan"})
    assert "plan" in refusal_warnings([cli], planning)[0]
    assert (
        refusal_warnings([cli], parse_agent_config({"type": "claude-code", "permission_mode": "bypassPermissions"}))
        == []
    )


def test_a_tool_order_on_the_shell_is_starved_without_bash() -> None:
    from coder_eval.models.criteria import ToolOrderCriterion

    order = ToolOrderCriterion(
        type="tool_order", description="ls first", first={"tool": "Bash", "pattern": "ls"}, then={"tool": "Write"}
    )
    (warning,) = refusal_warnings([order], parse_agent_config({"type": "claude-code", "allowed_tools": ["Write"]}))
    assert "tool_order" in warning and "Bash" in warning
    assert refusal_warnings([order], parse_agent_config({"type": "claude-code", "allowed_tools": ["Bash"]})) == []
