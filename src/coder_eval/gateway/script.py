"""The scripted model: plays a Script as the model behind a task's gateway route.

Rules, per model call:

* A call without tools is a side call (a title, a summary): it gets `side_reply` and the
  script does not move.
* A call whose conversation equals the one last answered is a resend (a client retry
  after a dropped stream): it gets the same reply again and the script does not move.
* Otherwise `delay` steps sleep, an `error` step raises GatewayError for its next `times`
  calls, a `reply` step answers text and ends the turn, and a tool step becomes one tool
  call (`parallel`: several) on whichever tool the agent offers, with argument names taken
  from that tool's JSON Schema. When the steps are used up every call gets `final_reply`.
* A write or edit the agent refused because the file was not read first (Claude Code,
  OpenCode) is recovered from without moving the script: the model reads the file, then
  repeats the refused call once.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import posixpath
import re
import shlex
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
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
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, ToolCall, ToolResult, ToolSpec, Usage

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

    def __init__(self, script: Script, *, cwd: str | None = None, sleep: Sleep | None = None) -> None:
        """`cwd`: the agent's working directory (else learnt from the requests); `sleep` is for tests."""
        self.script = script
        self.cwd = cwd
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

    async def reply(self, request: ModelRequest) -> ModelReply:
        """Answer one model call (GatewayError for an injected error or an unmappable step)."""
        if not request.tools:
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
        mapper = ToolMapper(request.tools, self.cwd)
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
        mapper = ToolMapper(request.tools, self.cwd)
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


def _tokens(chars: int) -> int:
    """About four characters per token, at least one."""
    return max(1, math.ceil(chars / 4))


def estimate_usage(request: ModelRequest, reply: ModelReply) -> Usage:
    """A deterministic token estimate: the request's text and tools in, the reply's text and calls out."""
    tools = json.dumps([[t.name, t.description, t.input_schema] for t in request.tools], sort_keys=True)
    chars = len(request.system) + len(tools)
    for m in request.messages:
        chars += len(m.text) + sum(len(json.dumps(c.arguments)) for c in m.tool_calls)
        chars += sum(len(r.content) for r in m.tool_results)
    out = len(reply.text) + sum(len(c.name) + len(json.dumps(c.arguments)) for c in reply.tool_calls)
    return Usage(input_tokens=_tokens(chars), output_tokens=_tokens(out))


_CWD_PATTERNS = (
    re.compile(r"<cwd>\s*([^<\n]+?)\s*</cwd>"),
    re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?:current |primary )?working directory:[ \t]*(/[^\n]*?)[ \t]*$", re.I | re.M),
    re.compile(r"currently working in the directory:?[ \t]*(/[^\n]*?)[ \t]*$", re.I | re.M),
)


def cwd_from_request(request: ModelRequest) -> str | None:
    """The agent's working directory as its prompts state it (Claude Code, Codex, Gemini CLI, OpenCode, Pi)."""
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


# --- mapping steps onto the agent's tools --------------------------------------------------------


class UnmappableStepError(Exception):
    """No offered tool can carry a step."""


PATH_ARGS = ("file_path", "path", "filename", "absolute_path", "target_file", "file")
CONTENT_ARGS = ("content", "contents", "file_text", "text")
OLD_ARGS = ("old_string", "old_str", "old_text", "old")
NEW_ARGS = ("new_string", "new_str", "new_text", "new")
COMMAND_ARGS = ("command", "cmd", "script")
SKILL_ARGS = ("skill", "command", "name")
PATCH_ARGS = ("input", "patch")

WRITE_TOOLS = ("write", "writefile", "createfile")
EDIT_TOOLS = ("edit", "editfile", "replace", "strreplacebasededittool", "strreplaceeditor")
READ_TOOLS = ("read", "readfile", "view")
SHELL_TOOLS = (
    "bash",
    "shell",
    "runshellcommand",
    "execcommand",
    "localshell",
    "shellcommand",
    "executecommand",
    "runcommand",
    "terminal",
)
SKILL_TOOLS = ("skill",)
PATCH_TOOLS = ("applypatch",)

_STRING = {"type": "string"}
_EDITOR_SCHEMA: dict[str, Any] = {
    "properties": {
        "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "undo_edit"]},
        "path": {"type": "string", "description": "Absolute path to file or directory."},
        "file_text": _STRING,
        "old_str": _STRING,
        "new_str": _STRING,
    },
    "required": ["command", "path"],
}
BUILTIN_SCHEMAS: dict[str, dict[str, Any]] = {
    "strreplacebasededittool": _EDITOR_SCHEMA,
    "strreplaceeditor": _EDITOR_SCHEMA,
    "bash": {"properties": {"command": _STRING}, "required": ["command"]},
    "localshell": {"properties": {"command": {"type": "array", "items": _STRING}}, "required": ["command"]},
    "applypatch": {"properties": {"input": _STRING}, "required": ["input"]},
}
"""Argument schemas assumed for provider-defined tools sent without one (Anthropic text editor and
bash, OpenAI local_shell, Codex's freeform apply_patch), keyed by normalized tool name."""


def normalized(name: str) -> str:
    """A name compared loosely: lower case, letters and digits only (`filePath` == `file_path`)."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


@dataclass(frozen=True)
class _Tool:
    """An offered tool with its argument schema indexed by normalized argument name."""

    name: str
    key: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...]
    _by_key: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, spec: ToolSpec) -> _Tool:
        """Index a ToolSpec, assuming the built-in schema for a known provider tool sent without one."""
        key = normalized(spec.name)
        schema = spec.input_schema if spec.parameter_names else BUILTIN_SCHEMAS.get(key, {})
        props = schema.get("properties", {})
        properties = {str(k): (v if isinstance(v, dict) else {}) for k, v in props.items()}
        required = tuple(str(r) for r in schema.get("required", []) if isinstance(r, str))
        return cls(spec.name, key, properties, required, {normalized(k): k for k in properties})

    def arg(self, candidates: Sequence[str]) -> str | None:
        """The first candidate argument this tool has, by its real name."""
        return next((self._by_key[normalized(c)] for c in candidates if normalized(c) in self._by_key), None)

    def enum(self, arg: str) -> list[Any] | None:
        """The allowed values of an argument, if its schema lists them."""
        values = self.properties.get(arg, {}).get("enum")
        return values if isinstance(values, list) else None

    def is_array(self, arg: str) -> bool:
        """Whether an argument's schema type is array."""
        kind = self.properties.get(arg, {}).get("type")
        return kind == "array" or (isinstance(kind, list) and "array" in kind)

    def description(self, arg: str) -> str:
        """An argument's schema description."""
        return str(self.properties.get(arg, {}).get("description", ""))


_PERMISSIVE = re.compile(
    r"relative or absolute|absolute or relative|absolute paths? (?:is|are) not|"
    r"relative paths? (?:is|are) (?:also )?(?:allowed|accepted|supported|fine|ok)"
)


def wants_absolute(tool: _Tool, arg: str) -> bool:
    """Whether a path argument asks for an absolute path (by its name or its description)."""
    if "absolute" in normalized(arg):
        return True
    text = tool.description(arg).lower()
    return "absolute" in text and not _PERMISSIVE.search(text)


Call = tuple[str, dict[str, Any]]
"""A tool name and its arguments."""


class ToolMapper:
    """Turns script actions into calls of the tools one request offers."""

    def __init__(self, tools: Sequence[ToolSpec], cwd: str | None) -> None:
        """Index the offered tools; `cwd` makes paths absolute for tools that ask for it."""
        self.tools = [_Tool.of(t) for t in tools]
        self.cwd = cwd

    def map(self, action: ToolAction) -> Call:
        """The tool call for one action (UnmappableStepError when no offered tool fits)."""
        if isinstance(action, WriteFile):
            return self.write(action)
        if isinstance(action, EditFile):
            return self.edit(action)
        if isinstance(action, ReadFile):
            return self.read(action.path)
        if isinstance(action, RunCommand):
            return self.run(action.command)
        return self.skill(action)

    # - the actions

    def write(self, action: WriteFile) -> Call:
        """Write tool, else a text editor's create, else apply_patch, else the shell."""
        extra = [(CONTENT_ARGS, action.content)]
        call = self._file_call(WRITE_TOOLS, "create", action.path, extra, f"Write {action.path}")
        if call is not None:
            return call
        patch = self._find(PATCH_TOOLS)
        if patch is not None:
            return self._patch_call(patch, add_file_patch(action.path, action.content))
        return self._shell_call(shell_write(action.path, action.content), "write a file")

    def edit(self, action: EditFile) -> Call:
        """Edit tool or text editor, else apply_patch for whole lines, else the shell, else apply_patch."""
        extra = [(OLD_ARGS, action.old), (NEW_ARGS, action.new)]
        call = self._file_call(EDIT_TOOLS, "str_replace", action.path, extra, f"Edit {action.path}")
        if call is not None:
            return call
        patch = self._find(PATCH_TOOLS)
        body = update_file_patch(action.path, action.old, action.new)
        if patch is not None and whole_lines(action.old, action.new):
            return self._patch_call(patch, body)
        if self._find(SHELL_TOOLS) is not None or patch is None:
            return self._shell_call(shell_edit(action.path, action.old, action.new), "edit a file")
        return self._patch_call(patch, body)

    def read(self, path: str) -> Call:
        """Read tool or text editor's view, else `cat` in the shell."""
        call = self._file_call(READ_TOOLS, "view", path, [], f"Read {path}")
        if call is not None:
            return call
        return self._shell_call(f"cat -- {shlex.quote(path)}", "read a file")

    def run(self, command: str) -> Call:
        """The shell tool."""
        return self._shell_call(command, "run a command")

    def skill(self, action: InvokeSkill) -> Call:
        """The Skill tool, else read the skill's SKILL.md."""
        tool = self._find(SKILL_TOOLS)
        arg = tool.arg(SKILL_ARGS) if tool is not None else None
        if tool is not None and arg is not None:
            return tool.name, self._fill_required(tool, {arg: action.name}, f"Use skill {action.name}")
        return self.read(action.skill_file)

    # - the tools

    def _find(self, names: Sequence[str]) -> _Tool | None:
        """The offered tool whose name comes first in `names`."""
        ranked = sorted((names.index(t.key), i) for i, t in enumerate(self.tools) if t.key in names)
        return self.tools[ranked[0][1]] if ranked else None

    def _file_tools(self, names: Sequence[str], subcommand: str) -> list[_Tool]:
        """Tools named like `names` (in that order), then text editors offering `subcommand`."""
        named = sorted((t for t in self.tools if t.key in names), key=lambda t: names.index(t.key))
        editors = [t for t in self.tools if t not in named and subcommand in (t.enum("command") or [])]
        return named + editors

    def _file_call(
        self, names: Sequence[str], subcommand: str, path: str, extra: Sequence[tuple[Sequence[str], str]], summary: str
    ) -> Call | None:
        """A call of the first file tool that has a path argument and every `extra` argument."""
        for tool in self._file_tools(names, subcommand):
            args = self._file_args(tool, subcommand, path, extra)
            if args is not None:
                return tool.name, self._fill_required(tool, args, summary)
        return None

    def _file_args(
        self, tool: _Tool, subcommand: str, path: str, extra: Sequence[tuple[Sequence[str], str]]
    ) -> dict[str, Any] | None:
        """Arguments for a file tool, or None when it lacks one we need (or the subcommand)."""
        args: dict[str, Any] = {}
        commands = tool.enum("command")
        if commands is not None:
            if subcommand not in commands:
                return None
            args["command"] = subcommand
        path_arg = tool.arg(PATH_ARGS)
        if path_arg is None:
            return None
        args[path_arg] = self._path(tool, path_arg, path)
        for candidates, value in extra:
            arg = tool.arg(candidates)
            if arg is None:
                return None
            args[arg] = value
        return args

    def _path(self, tool: _Tool, arg: str, path: str) -> str:
        """The path as the tool wants it: absolute (under cwd) when its schema asks and cwd is known."""
        if posixpath.isabs(path) or self.cwd is None or not wants_absolute(tool, arg):
            return path
        return posixpath.normpath(posixpath.join(self.cwd, path))

    def _patch_call(self, tool: _Tool, patch: str) -> Call:
        """An apply_patch call: the patch goes in its only string argument."""
        strings = [k for k, v in tool.properties.items() if v.get("type") == "string"]
        arg = tool.arg(PATCH_ARGS) or (strings[0] if len(strings) == 1 else "input")
        return tool.name, {arg: patch}

    def _shell_call(self, script: str, purpose: str) -> Call:
        """A shell call running `script` (as `bash -lc script` when the tool takes argv)."""
        tool = self._find(SHELL_TOOLS)
        arg = tool.arg(COMMAND_ARGS) if tool is not None else None
        if tool is None or arg is None:
            raise UnmappableStepError(f"no offered tool can {purpose} and there is no shell tool to fall back on")
        value: Any = ["bash", "-lc", script] if tool.is_array(arg) else script
        return tool.name, self._fill_required(tool, {arg: value}, script.split("\n", 1)[0][:80])

    @staticmethod
    def _fill_required(tool: _Tool, args: dict[str, Any], summary: str) -> dict[str, Any]:
        """Give required arguments we do not know a harmless value (default, first enum value, summary)."""
        for name in tool.required:
            if name not in args:
                args[name] = placeholder(tool.properties.get(name, {}), summary)
        return args


def placeholder(schema: dict[str, Any], summary: str) -> Any:
    """A value for an unknown required argument: its default, its first enum value, or a typed blank."""
    if "default" in schema:
        return schema["default"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kind = schema.get("type")
    blanks: dict[Any, Any] = {"boolean": False, "integer": 0, "number": 0, "array": [], "object": {}}
    return blanks.get(kind, summary)


# --- text of shell scripts and patches -----------------------------------------------------------


def _lines(text: str) -> list[str]:
    """The lines of a text, without a final empty line for a trailing newline."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def whole_lines(old: str, new: str) -> bool:
    """Whether an edit replaces whole lines (so an apply_patch hunk can express it exactly)."""
    return old.endswith("\n") and (new == "" or new.endswith("\n"))


def add_file_patch(path: str, content: str) -> str:
    """A Codex patch that creates `path` holding `content`."""
    body = "".join(f"+{line}\n" for line in _lines(content))
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch"


def update_file_patch(path: str, old: str, new: str) -> str:
    """A Codex patch that replaces the lines of `old` with the lines of `new` in `path`."""
    minus = "".join(f"-{line}\n" for line in _lines(old))
    plus = "".join(f"+{line}\n" for line in _lines(new))
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{minus}{plus}*** End Patch"


def heredoc_delimiter(content: str) -> str:
    """A heredoc delimiter that is not a line of `content`."""
    lines = set(content.split("\n"))
    n = 0
    while f"CODER_EVAL_EOF_{n}" in lines:
        n += 1
    return f"CODER_EVAL_EOF_{n}"


def shell_write(path: str, content: str) -> str:
    """A bash script that writes `content` to `path` exactly (creating parent directories).

    The heredoc is never the script's last line, so agents that trim the command and wrap it
    (Gemini CLI: `{ cmd; }; ...`) or eval it (Claude Code) run it unchanged.
    """
    q = shlex.quote(path)
    mkdir = f'mkdir -p -- "$(dirname -- {q})" && '
    if content == "":
        return f"{mkdir}: > {q}"
    end = heredoc_delimiter(content)
    if content.endswith("\n"):
        return f"{mkdir}cat > {q} <<'{end}' &&\n{content}{end}\ntrue"
    return f"{mkdir}printf '%s' \"$(cat <<'{end}'\n{content}\n{end}\n)\" > {q}"


_PY_EDIT = (
    "import sys; a = sys.argv; t = open(a[1], encoding='utf-8', newline='').read(); "
    "a[2] in t or sys.exit('old text not found in ' + a[1]); "
    "open(a[1], 'w', encoding='utf-8', newline='').write(t.replace(a[2], a[3], 1))"
)


def shell_edit(path: str, old: str, new: str) -> str:
    """A shell command that replaces the first `old` with `new` in `path` (python3 one-liner)."""
    return " ".join(shlex.quote(p) for p in ("python3", "-c", _PY_EDIT, path, old, new))
