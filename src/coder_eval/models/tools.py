"""Agent tool vocabularies: what an agent calls its tools and their arguments, in a canonical form.

Every agent kind declares one. The scripted model reads it to put a script step on the right
tool with the right argument names; events carry the canonical kind beside the raw tool name so
`command_executed`, reports and parity checks read the same on every agent.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ToolKind = Literal[
    "shell", "read", "write", "edit", "patch", "search", "list", "fetch", "skill", "task", "todo", "other"
]
"""Canonical tool kinds: what a call does, whatever the agent names it."""

ArgRole = Literal["path", "content", "old", "new", "command", "skill", "patch"]
"""The arguments a scripted step fills, by role."""


def normalized(name: str) -> str:
    """A name compared loosely: lower case, letters and digits only (`filePath` == `file_path`)."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


class ToolVocabulary(BaseModel):
    """An agent's tool names by canonical kind, and the argument keys its tools use by role.

    Names are matched loosely (`normalized`); order matters: when an agent offers two tools of
    one kind, the first listed is preferred.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tools: dict[str, ToolKind] = Field(
        default_factory=dict, description="Raw tool name -> canonical kind, in order of preference."
    )
    arguments: dict[ArgRole, tuple[str, ...]] = Field(
        default_factory=dict, description="Argument role -> the keys this agent's tools use for it."
    )
    schemas: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Argument schemas of provider-defined tools the agent sends without one, by tool name.",
    )

    def names(self, kind: ToolKind) -> tuple[str, ...]:
        """Normalized names of this agent's tools of `kind`, preferred first."""
        return tuple(normalized(name) for name, k in self.tools.items() if k == kind)

    def kind_of(self, tool_name: str) -> ToolKind:
        """The canonical kind of a raw tool name (`other` when the agent did not declare it)."""
        key = normalized(tool_name)
        for name, kind in self.tools.items():
            if normalized(name) == key:
                return kind
        return "other"

    def keys(self, role: ArgRole) -> tuple[str, ...]:
        """Argument keys for `role`."""
        return self.arguments.get(role, ())

    def schema_for(self, tool_name: str) -> dict[str, Any] | None:
        key = normalized(tool_name)
        for name, schema in self.schemas.items():
            if normalized(name) == key:
                return schema
        return None

    def merged(self, other: ToolVocabulary) -> ToolVocabulary:
        """This vocabulary with `other`'s names, keys and schemas added after its own."""
        arguments: dict[ArgRole, tuple[str, ...]] = dict(self.arguments)
        for role, keys in other.arguments.items():
            arguments[role] = tuple(dict.fromkeys([*arguments.get(role, ()), *keys]))
        return ToolVocabulary(
            tools={**self.tools, **{k: v for k, v in other.tools.items() if k not in self.tools}},
            arguments=arguments,
            schemas={**other.schemas, **self.schemas},
        )


CRITERION_TOOL_NAMES: dict[str, ToolKind] = {
    "Bash": "shell",
    "Read": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "Glob": "search",
    "Grep": "search",
    "LS": "list",
    "WebFetch": "fetch",
    "WebSearch": "fetch",
    "Task": "task",
    "TodoWrite": "todo",
    "Skill": "skill",
}
"""Tool names a criterion may filter on that stand for a kind on every agent (Claude Code's names,
the ones task files already use): `tool_name: Bash` counts Codex's and OpenCode's shell calls too."""

TOOL_KINDS: frozenset[str] = frozenset(ToolKind.__args__)  # type: ignore[attr-defined]


def filter_kind(name: str) -> ToolKind | None:
    """The kind a criterion's `tool_name` stands for: a kind itself (`shell`) or a name above; else None."""
    if name in TOOL_KINDS:
        return name  # type: ignore[return-value]
    key = normalized(name)
    for known, kind in CRITERION_TOOL_NAMES.items():
        if normalized(known) == key:
            return kind
    return None


def tool_matches(wanted: str, tool_name: str, tool_kind: str | None) -> bool:
    """Whether a call (raw name, canonical kind) answers a criterion's `tool_name` filter.

    The raw name always matches itself. Otherwise kinds are compared; an `apply_patch` style call
    (kind `patch`) answers both `Write` and `Edit`, since one patch may create or change files.
    """
    if tool_name == wanted:
        return True
    kind = filter_kind(wanted)
    if kind is None or tool_kind is None:
        return False
    return tool_kind == kind or (tool_kind == "patch" and kind in ("write", "edit"))


GENERIC_ARGUMENTS: dict[ArgRole, tuple[str, ...]] = {
    "path": ("file_path", "path", "filename", "absolute_path", "target_file", "file"),
    "content": ("content", "contents", "file_text", "text"),
    "old": ("old_string", "old_str", "old_text", "old"),
    "new": ("new_string", "new_str", "new_text", "new"),
    "command": ("command", "cmd", "script"),
    "skill": ("skill", "command", "name"),
    "patch": ("input", "patch"),
}
"""Argument names common across agents; a vocabulary that names none for a role falls back to these."""

GENERIC_VOCABULARY = ToolVocabulary(
    tools={
        "bash": "shell",
        "shell": "shell",
        "write": "write",
        "edit": "edit",
        "read": "read",
        "skill": "skill",
    },
    arguments=GENERIC_ARGUMENTS,
)
"""What a plugin agent that declares no vocabulary is assumed to offer: the usual tool names."""
