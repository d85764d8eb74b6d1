"""Mapping a script step onto the tools one request offers, in the agent's own vocabulary.

The agent kind declares its vocabulary (`ToolVocabulary`): which of its tools shell, write,
edit, read, invoke skills or apply patches, the argument keys its tools use per role, and the
schemas of provider-defined tools it sends without one. The mapper holds no agent's names
itself: it prefers the vocabulary's tools of the step's kind, then a text editor that offers
the matching subcommand, then apply_patch, then the shell, as far as the agent offers them.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from coder_eval.gateway.script_model import EditFile, InvokeSkill, ReadFile, RunCommand, ToolAction, WriteFile
from coder_eval.gateway.script_text import add_file_patch, shell_edit, shell_write, update_file_patch, whole_lines
from coder_eval.gateway.types import ToolSpec
from coder_eval.models.tools import GENERIC_ARGUMENTS, GENERIC_VOCABULARY, ArgRole, ToolKind, ToolVocabulary, normalized


class UnmappableStepError(Exception):
    """No offered tool can carry a step."""


@dataclass(frozen=True)
class OfferedTool:
    """An offered tool with its argument schema indexed by normalized argument name."""

    name: str
    key: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...]
    _by_key: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, spec: ToolSpec, vocabulary: ToolVocabulary) -> OfferedTool:
        """Index a ToolSpec, assuming the vocabulary's schema for a provider tool sent without one."""
        schema = spec.input_schema if spec.parameter_names else (vocabulary.schema_for(spec.name) or {})
        props = schema.get("properties", {})
        properties = {str(k): (v if isinstance(v, dict) else {}) for k, v in props.items()}
        required = tuple(str(r) for r in schema.get("required", []) if isinstance(r, str))
        return cls(spec.name, normalized(spec.name), properties, required, {normalized(k): k for k in properties})

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


def wants_absolute(tool: OfferedTool, arg: str) -> bool:
    """Whether a path argument asks for an absolute path (by its name or its description)."""
    if "absolute" in normalized(arg):
        return True
    text = tool.description(arg).lower()
    return "absolute" in text and not _PERMISSIVE.search(text)


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


Call = tuple[str, dict[str, Any]]
"""A tool name and its arguments."""

_Extra = Sequence[tuple[ArgRole, str]]
"""Arguments a file call needs besides the path: (role, value)."""


class ToolMapper:
    """Turns script actions into calls of the tools one request offers."""

    def __init__(
        self, tools: Sequence[ToolSpec], cwd: str | None, vocabulary: ToolVocabulary = GENERIC_VOCABULARY
    ) -> None:
        """Index the offered tools; `cwd` makes paths absolute for tools that ask for it."""
        self.vocabulary = vocabulary
        self.tools = [OfferedTool.of(t, vocabulary) for t in tools]
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
        call = self._file_call("write", "create", action.path, [("content", action.content)], f"Write {action.path}")
        if call is not None:
            return call
        patch = self._find("patch")
        if patch is not None:
            return self._patch_call(patch, add_file_patch(action.path, action.content))
        return self._shell_call(shell_write(action.path, action.content), "write a file")

    def edit(self, action: EditFile) -> Call:
        """Edit tool or text editor, else apply_patch for whole lines, else the shell, else apply_patch."""
        extra: _Extra = [("old", action.old), ("new", action.new)]
        call = self._file_call("edit", "str_replace", action.path, extra, f"Edit {action.path}")
        if call is not None:
            return call
        patch = self._find("patch")
        body = update_file_patch(action.path, action.old, action.new)
        if patch is not None and whole_lines(action.old, action.new):
            return self._patch_call(patch, body)
        if self._find("shell") is not None or patch is None:
            return self._shell_call(shell_edit(action.path, action.old, action.new), "edit a file")
        return self._patch_call(patch, body)

    def read(self, path: str) -> Call:
        """Read tool or text editor's view, else `cat` in the shell."""
        call = self._file_call("read", "view", path, [], f"Read {path}")
        if call is not None:
            return call
        return self._shell_call(f"cat -- {shlex.quote(path)}", "read a file")

    def run(self, command: str) -> Call:
        """The shell tool."""
        return self._shell_call(command, "run a command")

    def skill(self, action: InvokeSkill) -> Call:
        """The Skill tool, else read the skill's SKILL.md."""
        tool = self._find("skill")
        arg = tool.arg(self._keys("skill")) if tool is not None else None
        if tool is not None and arg is not None:
            return tool.name, self._fill_required(tool, {arg: action.name}, f"Use skill {action.name}")
        return self.read(action.skill_file)

    # - the tools

    def _keys(self, role: ArgRole) -> tuple[str, ...]:
        """The vocabulary's argument keys for `role`, else the generic ones."""
        return self.vocabulary.keys(role) or GENERIC_ARGUMENTS.get(role, ())

    def _find(self, kind: ToolKind) -> OfferedTool | None:
        """The offered tool of `kind` the vocabulary lists first."""
        names = self.vocabulary.names(kind)
        ranked = sorted((names.index(t.key), i) for i, t in enumerate(self.tools) if t.key in names)
        return self.tools[ranked[0][1]] if ranked else None

    def _file_tools(self, kind: ToolKind, subcommand: str) -> list[OfferedTool]:
        """The vocabulary's tools of `kind` (preferred first), then text editors offering `subcommand`."""
        names = self.vocabulary.names(kind)
        named = sorted((t for t in self.tools if t.key in names), key=lambda t: names.index(t.key))
        editors = [t for t in self.tools if t not in named and subcommand in (t.enum("command") or [])]
        return named + editors

    def _file_call(self, kind: ToolKind, subcommand: str, path: str, extra: _Extra, summary: str) -> Call | None:
        """A call of the first file tool that has a path argument and every `extra` argument."""
        for tool in self._file_tools(kind, subcommand):
            args = self._file_args(tool, subcommand, path, extra)
            if args is not None:
                return tool.name, self._fill_required(tool, args, summary)
        return None

    def _file_args(self, tool: OfferedTool, subcommand: str, path: str, extra: _Extra) -> dict[str, Any] | None:
        """Arguments for a file tool, or None when it lacks one we need (or the subcommand)."""
        args: dict[str, Any] = {}
        commands = tool.enum("command")
        if commands is not None:
            if subcommand not in commands:
                return None
            args["command"] = subcommand
        path_arg = tool.arg(self._keys("path"))
        if path_arg is None:
            return None
        args[path_arg] = self._path(tool, path_arg, path)
        for role, value in extra:
            arg = tool.arg(self._keys(role))
            if arg is None:
                return None
            args[arg] = value
        return args

    def _path(self, tool: OfferedTool, arg: str, path: str) -> str:
        """The path as the tool wants it: absolute (under cwd) when its schema asks and cwd is known."""
        if posixpath.isabs(path) or self.cwd is None or not wants_absolute(tool, arg):
            return path
        return posixpath.normpath(posixpath.join(self.cwd, path))

    def _patch_call(self, tool: OfferedTool, patch: str) -> Call:
        """An apply_patch call: the patch goes in its only string argument."""
        strings = [k for k, v in tool.properties.items() if v.get("type") == "string"]
        arg = tool.arg(self._keys("patch")) or (strings[0] if len(strings) == 1 else "input")
        return tool.name, {arg: patch}

    def _shell_call(self, script: str, purpose: str) -> Call:
        """A shell call running `script` (as `bash -lc script` when the tool takes argv)."""
        tool = self._find("shell")
        arg = tool.arg(self._keys("command")) if tool is not None else None
        if tool is None or arg is None:
            raise UnmappableStepError(f"no offered tool can {purpose} and there is no shell tool to fall back on")
        value: Any = ["bash", "-lc", script] if tool.is_array(arg) else script
        return tool.name, self._fill_required(tool, {arg: value}, script.split("\n", 1)[0][:80])

    def _fill_required(self, tool: OfferedTool, args: dict[str, Any], summary: str) -> dict[str, Any]:
        """Add the vocabulary's defaults for this tool, then give the other required arguments a
        harmless value (schema default, first enum value, summary)."""
        for name, value in self.vocabulary.defaults_for(tool.name).items():
            if name in tool.properties and name not in args:
                args[name] = self.cwd if value == "{cwd}" and self.cwd else value
        for name in tool.required:
            if name not in args:
                args[name] = placeholder(tool.properties.get(name, {}), summary)
        return args
