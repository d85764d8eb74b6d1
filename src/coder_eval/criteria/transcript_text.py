"""What the agent said and did, as text a pattern can search: its last reply, or its transcript.

The transcript is one JSON object a line, turn by turn: the prompt (`user`), each tool call
(`tool_use` with its input, then `tool_result` with its status and the start of its output), then
the agent's messages (`assistant`). JSON is compact and keeps non-ASCII text as is, so a pattern
such as `"name":"Bash"` finds a shell call.
"""

from __future__ import annotations

import json
from typing import Any

from coder_eval.models.telemetry import AssistantMessage, TurnRecord


def last_reply(turns: list[TurnRecord]) -> str:
    """The agent's final message: the last turn's output."""
    return turns[-1].agent_output if turns else ""


def _line(entry: dict[str, Any]) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=str)


def transcript_lines(turns: list[TurnRecord]) -> list[str]:
    lines: list[str] = []
    for turn in turns:
        lines.append(_line({"type": "user", "text": turn.user_input}))
        for cmd in turn.commands:
            lines.append(_line({"type": "tool_use", "name": cmd.tool_name, "input": cmd.parameters}))
            result = {"type": "tool_result", "name": cmd.tool_name, "status": cmd.status}
            lines.append(_line({**result, "output": cmd.result_summary or ""}))
        said = [m.content for m in turn.messages if isinstance(m, AssistantMessage) and m.content]
        if not said and turn.agent_output:
            said = [turn.agent_output]
        lines.extend(_line({"type": "assistant", "text": text}) for text in said)
    return lines


def transcript_text(turns: list[TurnRecord]) -> str:
    return "\n".join(transcript_lines(turns))
