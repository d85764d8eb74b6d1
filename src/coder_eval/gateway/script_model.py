"""The script file of the scripted model: a list of steps the gateway plays, one per model call.

A script is YAML beside a task. Each step is a mapping with exactly one key, the step
kind, whose value holds the step's fields; the kinds with one main field also accept
that field alone (``- run_command: pytest -q`` is ``- run_command: {command: pytest -q}``)::

    steps:
      - write_file: {path: hello.py, content: "print('hi')\\n"}
      - run_command: python hello.py
      - error: {status: 529, times: 2}
      - reply: All done.

The model classes here only describe and validate; `coder_eval.gateway.script` plays them.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from coder_eval.models.base import NonBlank


class _ScriptModel(BaseModel):
    """Strict, immutable base: unknown keys in a script are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class _Action(_ScriptModel):
    """A step's fields; `shorthand` names the field a bare scalar value fills."""

    shorthand: ClassVar[str | None] = None

    @model_validator(mode="before")
    @classmethod
    def _expand_shorthand(cls, value: Any) -> Any:
        """Turn `kind: scalar` into `kind: {<main field>: scalar}`."""
        if cls.shorthand is not None and value is not None and not isinstance(value, dict | BaseModel):
            return {cls.shorthand: value}
        return value


class WriteFile(_Action):
    """Create or overwrite a file."""

    path: NonBlank = Field(description="File path, relative to the agent's working directory (or absolute).")
    content: str = Field(description="The complete file content, written exactly.")


class EditFile(_Action):
    """Replace one occurrence of `old` with `new` in an existing file."""

    path: NonBlank = Field(description="File path, relative to the agent's working directory (or absolute).")
    old: str = Field(min_length=1, description="Text to replace; for Codex's apply_patch, whole lines.")
    new: str = Field(description="Replacement text.")


class ReadFile(_Action):
    """Read a file."""

    shorthand: ClassVar[str | None] = "path"
    path: NonBlank = Field(description="File path, relative to the agent's working directory (or absolute).")


class RunCommand(_Action):
    """Run a shell command."""

    shorthand: ClassVar[str | None] = "command"
    command: NonBlank = Field(description="Shell command line (run with bash -lc where the tool takes argv).")


class InvokeSkill(_Action):
    """Invoke a skill: the Skill tool when offered, else read the skill's SKILL.md."""

    shorthand: ClassVar[str | None] = "name"
    name: NonBlank = Field(description="Skill name as the agent knows it (e.g. `pdf` or `plugin:pdf`).")
    path: str | None = Field(
        None, description="SKILL.md to read when the agent has no Skill tool (default skills/<name>/SKILL.md)."
    )

    @property
    def skill_file(self) -> str:
        """The SKILL.md path read by agents without a Skill tool."""
        return self.path or f"skills/{self.name.rsplit(':', 1)[-1]}/SKILL.md"


class Reply(_Action):
    """Answer with plain assistant text, ending the agent's turn."""

    shorthand: ClassVar[str | None] = "text"
    text: str = Field(description="The assistant's text.")


ErrorStatus = Literal[429, 500, 503, 529]


class InjectError(_Action):
    """Answer the next `times` model calls with an HTTP error, then continue with the next step."""

    shorthand: ClassVar[str | None] = "status"
    status: ErrorStatus = Field(description="HTTP status: 429 rate limit, 500 server error, 503/529 overloaded.")
    times: int = Field(1, ge=1, le=1000, description="How many consecutive calls get the error.")
    message: str | None = Field(None, description="Error message (a default names the status).")


class Delay(_Action):
    """Sleep before answering the next model call."""

    shorthand: ClassVar[str | None] = "seconds"
    seconds: float = Field(ge=0, le=3600, description="Seconds to wait.")


class Tokens(_ScriptModel):
    """Token usage reported for every call instead of the built-in estimate."""

    input: int = Field(ge=0, description="Uncached input tokens per call.")
    output: int = Field(ge=0, description="Output tokens per call.")


class _Step(_ScriptModel):
    """A one-key step mapping; the key is the step kind."""

    @property
    def kind(self) -> str:
        """The step kind (the step's only key)."""
        return next(iter(type(self).model_fields))


class WriteFileStep(_Step):
    """`- write_file: {path, content}`"""

    write_file: WriteFile = Field(description="Create or overwrite a file.")


class EditFileStep(_Step):
    """`- edit_file: {path, old, new}`"""

    edit_file: EditFile = Field(description="Replace text in a file.")


class ReadFileStep(_Step):
    """`- read_file: path`"""

    read_file: ReadFile = Field(description="Read a file.")


class RunCommandStep(_Step):
    """`- run_command: command`"""

    run_command: RunCommand = Field(description="Run a shell command.")


class InvokeSkillStep(_Step):
    """`- invoke_skill: name`"""

    invoke_skill: InvokeSkill = Field(description="Invoke a skill.")


class ReplyStep(_Step):
    """`- reply: text`"""

    reply: Reply = Field(description="Plain assistant text that ends the turn.")


class ErrorStep(_Step):
    """`- error: {status, times, message}`"""

    error: InjectError = Field(description="Answer the next calls with an HTTP error.")


class DelayStep(_Step):
    """`- delay: seconds`"""

    delay: Delay = Field(description="Sleep before answering the next call.")


ToolAction = WriteFile | EditFile | ReadFile | RunCommand | InvokeSkill
"""The actions that become tool calls."""

TOOL_STEP_KINDS = ("write_file", "edit_file", "read_file", "run_command", "invoke_skill")
STEP_KINDS = (*TOOL_STEP_KINDS, "reply", "error", "delay", "parallel")


def step_kind(value: Any) -> str | None:
    """The kind of a raw step (its only key) or of a step model; None when it is not one-key."""
    if isinstance(value, _Step):
        return value.kind
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if isinstance(key, str) else None
    return None


_STEP_ERROR = "a step is a mapping with exactly one known key (the step kind)"

ToolStep = Annotated[
    Annotated[WriteFileStep, Tag("write_file")]
    | Annotated[EditFileStep, Tag("edit_file")]
    | Annotated[ReadFileStep, Tag("read_file")]
    | Annotated[RunCommandStep, Tag("run_command")]
    | Annotated[InvokeSkillStep, Tag("invoke_skill")],
    Discriminator(step_kind, custom_error_type="step_kind", custom_error_message=_STEP_ERROR),
]
"""A step that becomes one tool call (allowed inside `parallel`)."""


class ParallelStep(_Step):
    """`- parallel: [step, ...]`: several tool calls in one reply."""

    parallel: list[ToolStep] = Field(min_length=1, description="Tool steps answered together in one reply.")


Step = Annotated[
    Annotated[WriteFileStep, Tag("write_file")]
    | Annotated[EditFileStep, Tag("edit_file")]
    | Annotated[ReadFileStep, Tag("read_file")]
    | Annotated[RunCommandStep, Tag("run_command")]
    | Annotated[InvokeSkillStep, Tag("invoke_skill")]
    | Annotated[ReplyStep, Tag("reply")]
    | Annotated[ErrorStep, Tag("error")]
    | Annotated[DelayStep, Tag("delay")]
    | Annotated[ParallelStep, Tag("parallel")],
    Discriminator(step_kind, custom_error_type="step_kind", custom_error_message=_STEP_ERROR),
]
"""Any script step."""

ToolStepModel = WriteFileStep | EditFileStep | ReadFileStep | RunCommandStep | InvokeSkillStep
StepModel = ToolStepModel | ReplyStep | ErrorStep | DelayStep | ParallelStep


def tool_action(step: ToolStepModel) -> ToolAction:
    """The action a tool step carries."""
    action: ToolAction = getattr(step, step.kind)
    return action


class JudgeEntry(_ScriptModel):
    """How a scripted judge answers: one entry per judge criterion of the task.

    `llm_judge` and `system_one_judge` make one forced tool call, answered with `verdict`
    (the tool's arguments, sent as written, so a malformed verdict is scriptable too) or,
    for `system_one_judge`, `answers`; `reply` answers plain text instead (no verdict).
    `agent_judge` plays `steps` as tool calls in its workspace copy, then says `reply`.
    """

    criterion: int | NonBlank = Field(
        description="Which criterion: its index in success_criteria (from 0) or its description."
    )
    verdict: dict[str, Any] | None = Field(None, description="Arguments of the forced verdict tool call.")
    answers: dict[str, Any] | None = Field(None, description="system_one_judge: answer per question name.")
    reply: str | None = Field(None, description="Plain text answered instead of (or after) tool calls.")
    steps: list[Step] = Field(default_factory=list, description="agent_judge: tool steps played before `reply`.")
    delay: float = Field(0.0, ge=0, le=3600, description="Seconds to wait before answering each call.")
    error: ErrorStatus | None = Field(None, description="Answer every call with this HTTP error instead.")

    @model_validator(mode="after")
    def _one_answer(self) -> JudgeEntry:
        given = [k for k in ("verdict", "answers") if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError("give at most one of verdict or answers")
        if not given and self.reply is None and self.error is None and not self.delay:
            raise ValueError("a judge entry needs verdict, answers, reply, error or delay")
        return self


class Script(_ScriptModel):
    """A scripted model's whole play for one task."""

    steps: list[Step] = Field(default_factory=list, description="Played in order, one per model call with tools.")
    final_reply: str = Field("Done.", description="Text answered (ending the turn) once the steps are used up.")
    side_reply: str = Field(
        "Scripted session", description="Text answered to side calls (requests without tools, e.g. titles)."
    )
    model: str = Field("scripted", description="Model name reported in every reply.")
    tokens: Tokens | None = Field(None, description="Fixed per-call token usage instead of the estimate.")
    judges: list[JudgeEntry] = Field(default_factory=list, description="Answers of the task's judge criteria.")
    simulator: list[str] = Field(
        default_factory=list, description="Dialog mode: the simulated user's lines, one per simulator call."
    )
    replicates: dict[int, list[Step]] = Field(
        default_factory=dict,
        description="Replicate index (from 0) -> the steps played instead of `steps` in that replicate, "
        "so replicates can differ deterministically (e.g. 3 of 4 pass).",
    )

    def for_replicate(self, index: int) -> Script:
        """The script as replicate `index` plays it: its own `replicates` entry, else `steps`."""
        steps = self.replicates.get(index)
        if steps is None:
            return self
        return self.model_copy(update={"steps": steps})

    @model_validator(mode="after")
    def _replicate_keys(self) -> Script:
        negative = sorted(i for i in self.replicates if i < 0)
        if negative:
            raise ValueError(f"replicates: indices count from 0 (got {negative})")
        return self

    @model_validator(mode="after")
    def _distinct_judges(self) -> Script:
        seen: set[int | str] = set()
        for entry in self.judges:
            if entry.criterion in seen:
                raise ValueError(f"judges: criterion {entry.criterion!r} has two entries")
            seen.add(entry.criterion)
        return self


ACTION_MODELS: dict[str, type[BaseModel]] = {
    "write_file": WriteFile,
    "edit_file": EditFile,
    "read_file": ReadFile,
    "run_command": RunCommand,
    "invoke_skill": InvokeSkill,
    "reply": Reply,
    "error": InjectError,
    "delay": Delay,
    "tokens": Tokens,
    "judges": JudgeEntry,
}
"""The model that holds the fields under each step kind (and `tokens`), for error messages."""
