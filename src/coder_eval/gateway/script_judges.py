"""Scripted answers for judges and the simulated user under `-b script`.

The gateway's route for a judge criterion (or the simulator) is served by one of these sources,
built from the task script's `judges:` entry (or `simulator:` lines), so verdicts, malformed
verdicts, missing verdicts, errors and slow judges are all reproducible offline.
"""

from __future__ import annotations

import asyncio
import json

from coder_eval.gateway.script import ScriptedModel
from coder_eval.gateway.script_model import JudgeEntry, Script
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, ToolCall
from coder_eval.gateway.usage import estimate_usage
from coder_eval.models.tools import ToolVocabulary

_ERROR_KINDS = {429: "rate_limit_error", 500: "api_error", 503: "overloaded_error", 529: "overloaded_error"}


async def _delay_or_fail(entry: JudgeEntry) -> None:
    """What every scripted judge answer does first: wait its `delay`, raise its scripted `error`."""
    if entry.delay:
        await asyncio.sleep(entry.delay)
    if entry.error is not None:
        raise GatewayError(entry.error, f"scripted judge error {entry.error}", _ERROR_KINDS[entry.error])


class ScriptedVerdict:
    """Answers a forced-tool judge call with the entry's verdict (or its text reply)."""

    def __init__(self, entry: JudgeEntry, model: str = "scripted") -> None:
        self.entry = entry
        self.model = model

    async def reply(self, request: ModelRequest) -> ModelReply:
        entry = self.entry
        await _delay_or_fail(entry)
        args = (
            entry.verdict
            if entry.verdict is not None
            else ({"answers": entry.answers} if entry.answers is not None else None)
        )
        if args is not None and request.tools:
            call = ToolCall("verdict_0", request.tools[0].name, dict(args))
            reply = ModelReply(tool_calls=[call], stop_reason="tool_use", model=self.model)
        else:
            reply = ModelReply(text=entry.reply or "", stop_reason="end_turn", model=self.model)
        reply.usage = estimate_usage(request, reply)
        return reply


class ScriptedJudgeAgent:
    """Plays a judge agent: the entry's `steps` as tool calls in its copy, then its final message.

    The final message is `reply` when given, else the entry's `verdict` as a JSON object (what a
    judge agent is asked to end with). `delay` sleeps before every call; `error` fails every call.
    A judge given no tools at all makes its main calls without tools: those are told from side calls
    (titles) by `marker`, a phrase of the judge's system prompt.
    """

    def __init__(
        self,
        entry: JudgeEntry,
        *,
        cwd: str | None,
        vocabulary: ToolVocabulary | None,
        marker: str = "",
        model: str = "scripted",
    ) -> None:
        self.entry = entry
        self.marker = marker
        final = entry.reply if entry.reply is not None else json.dumps(entry.verdict or {})
        script = Script(steps=list(entry.steps), final_reply=final, model=model)
        self.model = ScriptedModel(script, cwd=cwd, vocabulary=vocabulary)

    async def reply(self, request: ModelRequest) -> ModelReply:
        await _delay_or_fail(self.entry)
        return await self.model.reply(request, main=bool(self.marker) and self.marker in request.system)


class ScriptedSimulator:
    """Plays the script's `simulator:` lines in order, one per simulator call."""

    def __init__(self, lines: list[str], model: str = "scripted") -> None:
        self.lines = list(lines)
        self.model = model
        self.position = 0

    async def reply(self, request: ModelRequest) -> ModelReply:
        if self.position >= len(self.lines):
            raise GatewayError(
                400, f"the script's simulator: section has only {len(self.lines)} lines", "invalid_request_error"
            )
        text = self.lines[self.position]
        self.position += 1
        reply = ModelReply(text=text, stop_reason="end_turn", model=self.model)
        reply.usage = estimate_usage(request, reply)
        return reply
