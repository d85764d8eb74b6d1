"""Criteria on what the agent said and did in one run: its reply, its transcript, the order of its
tool calls and the files it created (absent before the agent started, present after)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from coder_eval.models.base import NonBlank, RegexFlags, RegexStr, StrictModel
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.criteria_files import READ_LIMIT_BYTES, max_bytes_field

OutputSource = Literal["reply", "transcript", "created_files", "file"]

CREATED_GLOB_DOC = (
    "Glob over the workspace-relative paths of the files the agent created: `*` stays within one "
    "directory, `**/` spans any number of them, `?` is one character; the whole path must match."
)


class OutputMatchesCriterion(BaseCriterion):
    """Binary: a regex found in (or absent from, or counted in) what the agent produced."""

    type: Literal["output_matches"] = "output_matches"
    source: OutputSource = Field(
        "reply",
        description="What is searched: `reply` (the agent's last message), `transcript` (every turn as JSON "
        "lines: prompts, tool calls with their input and the start of their result, messages), "
        "`created_files` (the paths of the files the agent created, one a line) or `file` (one file's text).",
    )
    path: str | None = Field(None, description="With source `file`: the sandbox-relative file (it must exist).")
    pattern: RegexStr = Field(description="Python regular expression.")
    flags: RegexFlags = Field(0, ge=0, description="`re` flags as an integer (2 IGNORECASE, 8 MULTILINE, 16 DOTALL).")
    match: Literal["contains", "absent", "count"] = Field(
        "contains", description="`contains`: found at least once; `absent`: never found; `count`: found `count` times."
    )
    count: int | None = Field(
        None, ge=0, description="With match `count`: the exact number of non-overlapping matches."
    )
    max_bytes: int | None = max_bytes_field(READ_LIMIT_BYTES, "32 MiB, read whole; source `file` only")
    requires_agent: ClassVar[bool] = True

    @property
    def needs_files_before(self) -> bool:
        return self.source == "created_files"

    @model_validator(mode="after")
    def _consistent(self) -> OutputMatchesCriterion:
        if (self.source == "file") != (self.path is not None):
            raise ValueError("path is set exactly when source is `file`")
        if (self.match == "count") != (self.count is not None):
            raise ValueError("count is set exactly when match is `count`")
        if self.max_bytes is not None and self.source != "file":
            raise ValueError("max_bytes applies to source `file` only")
        return self


class ToolCallMatch(StrictModel):
    """Which tool calls count: a tool filter and an optional regex over the call's input."""

    tool: NonBlank = Field(
        description="A raw tool name, a canonical kind (shell, read, write, ...) or a Claude Code name standing "
        "for its kind on every agent (Bash = any shell tool)."
    )
    pattern: RegexStr | None = Field(
        None, description="Regex over the call's command (shell tools) or its input rendered as key=value pairs."
    )


class ToolOrderCriterion(BaseCriterion):
    """Binary: the first call matching `first` comes before the first call matching `then`."""

    type: Literal["tool_order"] = "tool_order"
    first: ToolCallMatch = Field(description="The call that must come first.")
    then: ToolCallMatch = Field(description="The call that must come after it.")
    requires_agent: ClassVar[bool] = True


class FileCreatedCriterion(BaseCriterion):
    """Binary: a file the agent created matches `path` (or, with exists false, none does)."""

    type: Literal["file_created"] = "file_created"
    path: NonBlank = Field(description=CREATED_GLOB_DOC)
    exists: bool = Field(True, description="False: no created file may match (a file there before does not count).")
    requires_agent: ClassVar[bool] = True

    @property
    def needs_files_before(self) -> bool:
        return True
