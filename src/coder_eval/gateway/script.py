"""The scripted model: plays a Script as the model behind a task's gateway route.

Rules, per model call:

* A call without tools is a side call (a title, a summary): it gets `side_reply` and the
  script does not move.
* A call whose conversation equals the one last answered is a resend (a client retry
  after a dropped stream): it gets the same reply again and the script does not move.
* Otherwise `delay` steps sleep, an `error` step raises GatewayError for its next `times`
  calls, a `reply` step answers text and ends the turn, and a tool step becomes one tool
  call (`parallel`: several) on whichever tool the agent offers, found by the agent's tool
  vocabulary, with argument names taken from that tool's JSON Schema (`tool_mapping.py`).
  When the steps are used up every call gets `final_reply`.
* A write or edit the agent refused because the file was not read first (Claude Code,
  OpenCode) is recovered from without moving the script: the model reads the file, then
  repeats the refused call once.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from coder_eval.gateway.script_model import (
    DelayStep,
    EditFile,
    ErrorStep,
    InjectError,
    InvokeSkill,
    ParallelStep,
    ReadFile,
    ReplyStep,
    RunCommand,
    Script,
    StepModel,
    ToolAction,
    ToolStepModel,
    WriteFile,
    tool_action,
)
from coder_eval.gateway.tool_mapping import ToolMapper, UnmappableStepError
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, ToolCall, ToolResult, Usage
from coder_eval.gateway.usage import estimate_usage
from coder_eval.models.tools import GENERIC_VOCABULARY, ToolVocabulary

Sleep = Callable[[float], Awaitable[None]]

_MUST_READ = re.compile(r"has not been read|must read|\bread\b[^.\n]*\b(?:first|before)\b", re.I)
"""A refusal to write/edit a file the agent has not read (Claude Code, OpenCode)."""

ERROR_KINDS = {429: "rate_limit_error", 500: "api_error", 503: "overloaded_error", 529: "overloaded_error"}
"""Protocol error type the gateway reports for each injectable status."""


@dataclass(frozen=True)
class HistoryEntry:
    """What answered one model call: a step (by index), a side reply, a resend or the final reply."""

    call: int
    kind: str
    """Step kind (`write_file`, ..., `parallel`, `reply`, `error`), or `side_call`, `resend`,
    `final_reply`, `read_before_write` / `retry` (recovering a write refused as unread)."""
    step: int | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    status: int | None = None
    """HTTP status of an injected error."""


class ScriptedModel:
    """A reply source that plays a Script; one instance per task route."""

    def __init__(
        self,
        script: Script,
        *,
        cwd: str | None = None,
        vocabulary: ToolVocabulary | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        """`cwd`: the agent's working directory (else learnt from the requests); `vocabulary`: the
        agent's tool names and argument keys (default: the generic ones); `sleep` is for tests."""
        self.script = script
        self.cwd = cwd
        self.vocabulary = vocabulary or GENERIC_VOCABULARY
        self.history: list[HistoryEntry] = []
        self._steps: list[StepModel] = list(script.steps)
        self._position = 0
        self._errors_sent = 0
        self._last: tuple[str, ModelReply] | None = None
        self._issued: dict[str, tuple[int, ToolAction, ToolCall]] = {}
        self._retry: tuple[int, list[ToolCall]] | None = None
        self._sleep: Sleep = sleep or asyncio.sleep
        self._lock = asyncio.Lock()

    @property
    def position(self) -> int:
        """Index of the next step to play."""
        return self._position

    @property
    def finished(self) -> bool:
        """Whether every step has been played."""
        return self._position >= len(self._steps)

    async def reply(self, request: ModelRequest, *, main: bool = False) -> ModelReply:
        """Answer one model call (GatewayError for an injected error or an unmappable step);
        `main` plays the script even for a call without tools (an agent given no tools at all)."""
        if not request.tools and not main:
            self._record("side_call")
            return self._text_reply(request, self.script.side_reply)
        async with self._lock:
            return await self._main_reply(request)

    async def _main_reply(self, request: ModelRequest) -> ModelReply:
        """Answer a call with tools: a resend, or the next step."""
        fingerprint = conversation_fingerprint(request)
        if self._last is not None and self._last[0] == fingerprint:
            self._record("resend", tool_calls=tuple(self._last[1].tool_calls))
            return replace(self._last[1], tool_calls=list(self._last[1].tool_calls))
        if self.cwd is None:
            self.cwd = cwd_from_request(request)
        reply = self._recover(request) or await self._play_next(request)
        self._last = (fingerprint, reply)
        return reply

    def _recover(self, request: ModelRequest) -> ModelReply | None:
        """Read a file whose write/edit was refused as unread, then repeat the refused call once."""
        if self._retry is not None:
            index, calls = self._retry
            self._retry = None
            retried = [ToolCall(f"{c.id}_retry", c.name, c.arguments) for c in calls]
            return self._calls_reply(request, "retry", index, retried)
        refused = [r for r in map(self._refusal, request.tool_results) if r is not None]
        self._issued = {}
        if not refused:
            return None
        mapper = ToolMapper(request.tools, self.cwd, self.vocabulary)
        try:
            reads = [ToolCall(f"{call.id}_read", *mapper.read(action.path)) for _, action, call in refused]
        except UnmappableStepError:
            return None
        self._retry = (refused[0][0], [call for _, _, call in refused])
        return self._calls_reply(request, "read_before_write", refused[0][0], reads)

    def _refusal(self, result: ToolResult) -> tuple[int, WriteFile | EditFile, ToolCall] | None:
        """Our write/edit call that `result` refuses because the file was not read first, if it does."""
        issued = self._issued.get(result.call_id)
        if issued is None:
            return None
        index, action, call = issued
        if not isinstance(action, WriteFile | EditFile):
            return None
        short = result.is_error or len(result.content) <= 300
        return (index, action, call) if short and _MUST_READ.search(result.content[:300]) else None

    async def _play_next(self, request: ModelRequest) -> ModelReply:
        """Sleep through delays, then answer with the next step (or the final reply)."""
        while not self.finished:
            index, step = self._position, self._steps[self._position]
            if isinstance(step, DelayStep):
                await self._sleep(step.delay.seconds)
                self._position += 1
                continue
            if isinstance(step, ErrorStep):
                raise self._inject(index, step.error)
            if isinstance(step, ReplyStep):
                self._position += 1
                self._record("reply", step=index)
                return self._text_reply(request, step.reply.text)
            reply = self._tool_reply(request, index, step)
            self._position += 1
            return reply
        self._record("final_reply")
        return self._text_reply(request, self.script.final_reply)

    def _inject(self, index: int, error: InjectError) -> GatewayError:
        """The error for this call; the step is done once it has been sent `times` times."""
        self._errors_sent += 1
        count = self._errors_sent
        if count >= error.times:
            self._position += 1
            self._errors_sent = 0
        self._record("error", step=index, status=error.status)
        message = error.message or f"scripted error {error.status} ({count} of {error.times})"
        return GatewayError(error.status, message, ERROR_KINDS[error.status])

    def _tool_reply(self, request: ModelRequest, index: int, step: ToolStepModel | ParallelStep) -> ModelReply:
        """One reply carrying the tool call(s) of a tool step or a parallel step."""
        steps: Sequence[ToolStepModel] = step.parallel if isinstance(step, ParallelStep) else [step]
        mapper = ToolMapper(request.tools, self.cwd, self.vocabulary)
        calls: list[ToolCall] = []
        for n, sub in enumerate(steps):
            action = tool_action(sub)
            try:
                name, arguments = mapper.map(action)
            except UnmappableStepError as exc:
                offered = ", ".join(t.name for t in request.tools)
                message = f"script step {index} ({describe_action(action)}): {exc}; the agent offers: {offered}"
                raise GatewayError(400, message, "invalid_request_error") from None
            call = ToolCall(f"call_{index}_{n}", name, arguments)
            calls.append(call)
            self._issued[call.id] = (index, action, call)
        return self._calls_reply(request, step.kind, index, calls)

    def _calls_reply(self, request: ModelRequest, kind: str, index: int, calls: list[ToolCall]) -> ModelReply:
        """A tool-use reply carrying `calls`, recorded in the history."""
        self._record(kind, step=index, tool_calls=tuple(calls))
        reply = ModelReply(tool_calls=calls, stop_reason="tool_use", model=self.script.model)
        reply.usage = self._usage(request, reply)
        return reply

    def _text_reply(self, request: ModelRequest, text: str) -> ModelReply:
        """A plain-text reply that ends the turn."""
        reply = ModelReply(text=text, stop_reason="end_turn", model=self.script.model)
        reply.usage = self._usage(request, reply)
        return reply

    def _usage(self, request: ModelRequest, reply: ModelReply) -> Usage:
        """The script's fixed tokens, or the deterministic estimate."""
        tokens = self.script.tokens
        if tokens is not None:
            return Usage(input_tokens=tokens.input, output_tokens=tokens.output)
        return estimate_usage(request, reply)

    def _record(self, kind: str, *, step: int | None = None, **extra: Any) -> None:
        """Append a history entry for the call being answered."""
        self.history.append(HistoryEntry(call=len(self.history), kind=kind, step=step, **extra))


def conversation_fingerprint(request: ModelRequest) -> str:
    """A hash of the conversation (roles, texts, tool calls and results): equal for a resent request."""
    data = [
        [
            m.role,
            m.text,
            [[c.id, c.name, c.arguments] for c in m.tool_calls],
            [[r.call_id, r.content, r.is_error] for r in m.tool_results],
        ]
        for m in request.messages
    ]
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


_CWD_PATTERNS = (
    re.compile(r"<cwd>\s*([^<\n]+?)\s*</cwd>"),
    re.compile(
        r"^[ \t]*(?:[-*][ \t]+)?(?:current |primary |command )?working directory:[ \t]*(/[^\n]*?)[ \t]*$", re.I | re.M
    ),
    re.compile(r"currently working in the directory:?[ \t]*(/[^\n]*?)[ \t]*$", re.I | re.M),
)


def cwd_from_request(request: ModelRequest) -> str | None:
    """The agent's working directory as its prompts state it (Claude Code, Codex, Gemini CLI, OpenCode, Pi,
    Antigravity's "Command Working Directory")."""
    texts = [request.system, *(m.text for m in request.messages if m.role == "user")]
    for text in texts:
        for pattern in _CWD_PATTERNS:
            match = pattern.search(text)
            if match:
                return match.group(1).rstrip("/") or "/"
    return None


def describe_action(action: ToolAction) -> str:
    """A short description of a tool step, for messages."""
    if isinstance(action, RunCommand):
        return f"run_command {action.command!r}"
    if isinstance(action, InvokeSkill):
        return f"invoke_skill {action.name}"
    kind = {WriteFile: "write_file", EditFile: "edit_file", ReadFile: "read_file"}[type(action)]
    return f"{kind} {action.path}"
