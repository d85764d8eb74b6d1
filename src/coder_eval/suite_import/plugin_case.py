"""One `claude plugin eval` case read as Claude Code reads it: `case.yaml`, and/or `prompt.md` (its
frontmatter and body) with `graders/*.md` (one grader a file, named after it).

A case directory holds `case.yaml` or `prompt.md`. prompt.md's frontmatter sets top-level keys
(`name`, `runs`, `tags`, ...) and execution keys (`max_turns`, `allowed_tools`, ...); its body is the
prompt. A grader file's frontmatter is the grader (its `type` first); its body is the rubric of an
`llm` or `baseline` grader, or the pattern of a `regex` one. Graders from case.yaml come first, then
the files in name order. The result is validated with the format's own rules: unknown grader keys
and kinds, a missing prompt, a case with no grader, two graders of one name are each a clear error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from coder_eval.errors import TaskConfigError
from coder_eval.loading.safe_read import read_input_text
from coder_eval.suite_import.frontmatter import read_markdown

GRADER_KINDS = ("regex", "tool_order", "tool_used", "file_exists", "llm", "baseline")
TOP_KEYS = frozenset({"schema_version", "name", "description", "tags", "plugins", "runs", "expected_outcome"})
EXECUTION_KEYS = frozenset(
    {
        "model",
        "max_turns",
        "timeout_seconds",
        "allowed_tools",
        "disallowed_tools",
        "artifact_publish",
        "growthbook_overrides",
        "append_system_prompt",
        "env",
    }
)
BODY_FIELD = {"llm": "criteria", "baseline": "criteria", "regex": "pattern"}
TEMPLATE_PROMPT = "TODO: describe what the agent should do"
TEMPLATE_RUBRIC = "TODO: describe what a successful response looks like"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Lenient(BaseModel):
    """Unknown keys are kept (and listed as not imported), as Claude Code ignores them."""

    model_config = ConfigDict(extra="allow")


class FileTarget(_Strict):
    source: Literal["file"]
    path: str


Target = Literal["trace", "last_message", "files", "mock_calls"] | FileTarget


class ToolRef(_Strict):
    tool: str
    input_match: str | None = None


def _tool_ref(value: Any) -> Any:
    return {"tool": value} if isinstance(value, str) else value


class _Grader(_Strict):
    name: str
    weight: float = Field(1.0, gt=0)
    arm: Literal["with-only", "both"] | None = None


class RegexGrader(_Grader):
    type: Literal["regex"]
    target: Target = "last_message"
    pattern: str
    flags: str = Field("", pattern=r"^[dgimsuvy]*$")
    match: str = Field("contains", pattern=r"^(contains|not_contains|count:\d+)$")


class ToolOrderGrader(_Grader):
    type: Literal["tool_order"]
    before: ToolRef
    after: ToolRef

    _refs = field_validator("before", "after", mode="before")(_tool_ref)


class ToolUsedGrader(_Grader):
    type: Literal["tool_used"]
    tool: str
    input_match: str | None = None
    min: int | None = Field(None, ge=0)
    max: int | None = Field(None, ge=0)


class FileExistsGrader(_Grader):
    type: Literal["file_exists"]
    path: str
    exists: bool = True


class LlmGrader(_Grader):
    type: Literal["llm"]
    criteria: str
    focus: Target = "last_message"


class BaselineGrader(_Grader):
    type: Literal["baseline"]
    baseline_file: str
    criteria: str


Grader = Annotated[
    RegexGrader | ToolOrderGrader | ToolUsedGrader | FileExistsGrader | LlmGrader | BaselineGrader,
    Field(discriminator="type"),
]


class Context(_Lenient):
    scaffold_script: str | None = None
    history_file: str | None = None
    add_dirs: list[str] = Field(default_factory=list)


class Execution(_Lenient):
    prompt: str | None = None
    max_turns: int = Field(10, ge=1, le=200)
    timeout_seconds: int = Field(300, ge=1, le=3600)
    model: str | None = None
    allowed_tools: list[str] = Field(default_factory=list)
    disallowed_tools: list[str] | None = None
    artifact_publish: bool | None = None
    growthbook_overrides: dict[str, Any] | None = None
    append_system_prompt: str | None = None
    env: dict[str, str] = Field(default_factory=dict)


class PluginCase(_Lenient):
    schema_version: str
    name: str = Field(min_length=1)
    description: str | None = None
    tags: list[str] = Field(default_factory=list)
    plugins: list[str] | None = None
    context: Context = Field(default_factory=Context)
    execution: Execution = Field(default_factory=Execution)
    runs: int = Field(3, ge=1, le=50)
    graders: list[Grader] = Field(min_length=1)
    expected_outcome: str | None = None

    @model_validator(mode="after")
    def _rules(self) -> PluginCase:
        major = self.schema_version.split(".")[0]
        if not major.isdigit():
            raise ValueError(f'schema_version "{self.schema_version}" is not a version string')
        if int(major) > 1:
            raise ValueError(f'schema_version "{self.schema_version}" is newer than the 1.x format this importer reads')
        names = [g.name for g in self.graders]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"two graders share the name {twice[0]!r}")
        if not (self.execution.prompt or "").strip():
            raise ValueError("there is no prompt (a prompt.md body, or execution.prompt in case.yaml)")
        if TEMPLATE_PROMPT in (self.execution.prompt or ""):
            raise ValueError("the prompt is still the blank `init` template line")
        return self


def _read_case_yaml(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = yaml.safe_load(read_input_text(path, source=path, what="case.yaml"))
    except yaml.YAMLError as exc:
        raise TaskConfigError.single(
            path, f"not valid YAML: {' '.join(str(exc).split())}", "", "fix its syntax"
        ) from None
    if data is None:
        return None
    if not isinstance(data, dict):
        raise TaskConfigError.single(path, "case.yaml must be a mapping", "", "write `key: value` lines")
    return data


def _prose(
    case_dir: Path,
) -> tuple[dict[str, Any], dict[str, Any], str | None, list[tuple[dict[str, Any], Path]]]:
    """prompt.md's top-level keys, execution keys and body, and the graders of graders/*.md (with their files)."""
    top: dict[str, Any] = {}
    execution: dict[str, Any] = {}
    prompt = None
    prompt_md = case_dir / "prompt.md"
    if prompt_md.is_file():
        front, body = read_markdown(prompt_md)
        for key, value in (front or {}).items():
            if key in TOP_KEYS:
                top[key] = value
            elif key in EXECUTION_KEYS:
                execution[key] = value
            else:
                known = ", ".join(sorted(TOP_KEYS | EXECUTION_KEYS))
                raise TaskConfigError.single(
                    prompt_md,
                    f"unknown frontmatter key {key!r}",
                    str(key),
                    f"Claude Code refuses it too; use one of {known}",
                )
        prompt = body.strip() or None
    graders: list[tuple[dict[str, Any], Path]] = []
    grader_dir = case_dir / "graders"
    if grader_dir.is_dir():
        for md in sorted(p for p in grader_dir.iterdir() if p.suffix == ".md" and p.is_file()):
            front, body = read_markdown(md)
            if front is None:
                continue  # a note without frontmatter is not a grader (Claude Code skips it too)
            if not isinstance(front.get("type"), str):
                kinds = " | ".join(GRADER_KINDS)
                raise TaskConfigError.single(md, "the frontmatter has no `type:`", "type", f"one of {kinds}")
            grader: dict[str, Any] = {"name": md.stem, **front}
            body_field = BODY_FIELD.get(front["type"])
            if body_field and grader.get(body_field) is None and body.strip():
                grader[body_field] = body.strip()
            graders.append((grader, md))
    return top, execution, prompt, graders


def merge_case(case_dir: Path) -> tuple[dict[str, Any] | None, Path, list[Path]]:
    """The case as one mapping (case.yaml overlaid by the prose files), the file to blame for errors,
    and the file each grader came from."""
    case_yaml = case_dir / "case.yaml"
    base = _read_case_yaml(case_yaml)
    top, execution, prompt, graders = _prose(case_dir)
    blame = case_yaml if base is not None else case_dir / "prompt.md"
    if base is None and prompt is None and not graders and not top and not execution:
        return None, blame, []
    doc: dict[str, Any] = dict(base) if base is not None else {"schema_version": "1.1", "name": case_dir.name}
    doc.update(top)
    merged_exec = dict(doc.get("execution") or {}) if isinstance(doc.get("execution"), dict) else {}
    if "disallowed_tools" in execution and isinstance(merged_exec.get("disallowed_tools"), list):
        execution = {
            **execution,
            "disallowed_tools": [*merged_exec["disallowed_tools"], *execution["disallowed_tools"]],
        }
    merged_exec.update(execution)
    if prompt is not None:
        merged_exec["prompt"] = prompt
    doc["execution"] = merged_exec
    listed = doc.get("graders")
    own: list[Any] = listed if isinstance(listed, list) else []
    sources = [case_yaml] * len(own)
    if graders:
        doc["graders"] = [*own, *(g for g, _ in graders)]
        sources += [path for _, path in graders]
    return doc, blame, sources


def _problem(exc: ValidationError) -> tuple[str, str, int | None]:
    """The first error's message, its field path, and the grader it is in (if any)."""
    first = exc.errors()[0]
    loc = list(first["loc"])
    index = loc[1] if len(loc) > 1 and loc[0] == "graders" and isinstance(loc[1], int) else None
    if index is not None and len(loc) > 2 and loc[2] in GRADER_KINDS:
        del loc[2]  # the union's tag, not a field
    return first["msg"], ".".join(str(p) for p in loc), index


def read_case(case_dir: Path) -> tuple[PluginCase, Path, list[Path]]:
    """The validated case, the file it was mainly read from and each grader's file; TaskConfigError
    naming the file and field at fault."""
    doc, blame, sources = merge_case(case_dir)
    if doc is None:
        raise TaskConfigError.single(
            case_dir, "no case here: case.yaml and prompt.md are empty or missing", "", "write the prompt in prompt.md"
        )
    graders = doc.get("graders")
    if not graders:
        raise TaskConfigError.single(
            blame, "the case has no grader", "graders", "add graders/<name>.md, or a graders: list in case.yaml"
        )
    if isinstance(graders, list):
        for i, grader in enumerate(graders):
            kind = grader.get("type") if isinstance(grader, dict) else None
            if isinstance(kind, str) and kind not in GRADER_KINDS:
                name = grader.get("name", i)
                raise TaskConfigError.single(
                    sources[i] if i < len(sources) else blame,
                    f"grader {name!r} is of kind {kind!r}, which this importer cannot map: it knows "
                    f"{', '.join(GRADER_KINDS)} (the kinds of format 1.x)",
                    f"graders[{i}].type",
                    "grade it by hand with a Coder Eval criterion, or remove it",
                )
    try:
        case = PluginCase.model_validate(doc)
    except ValidationError as exc:
        message, where, index = _problem(exc)
        file = sources[index] if index is not None and index < len(sources) else blame
        raise TaskConfigError.single(file, message.removeprefix("Value error, "), where, "fix the case file") from None
    for i, grader in enumerate(case.graders):
        text = getattr(grader, "criteria", None) or getattr(grader, "pattern", None) or ""
        if TEMPLATE_RUBRIC in text:
            raise TaskConfigError.single(
                sources[i], f"grader {grader.name!r} is still the blank `init` template line", "", "write real criteria"
            )
    return case, blame, sources
