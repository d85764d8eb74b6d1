"""Each `claude plugin eval` grader as a Coder Eval criterion, or a refusal naming why not.

| grader | criterion |
| --- | --- |
| `regex` over `last_message`, `trace`, `files`, `{source: file, path}` | `output_matches` over `reply`, |
|  | `transcript`, `created_files`, `file` |
| `tool_used` (`Skill`, a skill named or the plugin's one skill, at least once or never) | `skill_triggered` |
| `tool_used` (any other) | `command_executed` (`min`/`max` as `min_count`/`max_count`) |
| `tool_order` | `tool_order` |
| `file_exists` | `file_created` (the format checks the files the run created) |
| `llm` | `llm_judge`, shown what the grader's `focus` names |
| `baseline` | `llm_judge`, shown the baseline trajectory beside the agent's work |

Every criterion is pass/fail as the grader is (`pass_threshold` 1.0; a judge passes at 0.5),
keeps the grader's weight, and its description starts with the grader's name. A with-only grader
(`arm: with-only`, or `tool_used: Skill` without an `arm`) becomes an informational criterion
(weight 0) unless every grader of the case is one, as the format leaves it out of the score when
a no-plugin arm runs. What cannot be carried is refused (`GraderRefusedError`: the field and why):
a target or focus of `mock_calls`, a pattern Python cannot read the same way, a path outside the
workspace or the case directory.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from coder_eval.suite_import.js_regex import UnsupportedRegexError, to_python
from coder_eval.suite_import.plugin_case import (
    BaselineGrader,
    FileExistsGrader,
    FileTarget,
    Grader,
    LlmGrader,
    RegexGrader,
    ToolOrderGrader,
    ToolRef,
    ToolUsedGrader,
)

NO_MOCKS = "mock_calls: the MCP stand-ins are not carried, so no mocked call exists"
JUDGE_SCALE = "Score 1.0 when the criterion is met and 0.0 when it is not."
_SKILL_NAME = re.compile(r"^(?:[A-Za-z0-9_-]+:)?([A-Za-z0-9_-]+)$")
_JSON_CHARS = re.compile(r'["{}]')


class GraderRefusedError(Exception):
    """A grader this importer cannot carry: `field` is the grader's field at fault."""

    def __init__(self, grader: str, field_name: str, reason: str) -> None:
        super().__init__(f"grader {grader!r}: {field_name}: {reason}")
        self.grader, self.field_name, self.reason = grader, field_name, reason


@dataclass
class GraderContext:
    """What a grader's mapping may need of its case and of the plugin."""

    case_dir: Path
    task_dir: Path
    skills: list[str]
    with_only_informational: bool
    """Some grader of the case is scored, so with-only graders become informational."""
    losses: list[str] = field(default_factory=list)


def is_with_only(grader: Grader) -> bool:
    if grader.arm is not None:
        return grader.arm == "with-only"
    return isinstance(grader, ToolUsedGrader) and grader.tool == "Skill"


def _python(grader: str, field_name: str, pattern: str, flags: str = "") -> tuple[str, int]:
    try:
        return to_python(pattern, flags)
    except UnsupportedRegexError as exc:
        raise GraderRefusedError(grader, field_name, f"{exc}; rewrite it so Python reads it the same way") from None


def _workspace_path(grader: str, field_name: str, path: str) -> str:
    pure = PurePosixPath(path.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or not path.strip():
        raise GraderRefusedError(grader, field_name, f"{path!r} is not a path inside the workspace")
    return pure.as_posix()


def _regex(g: RegexGrader, ctx: GraderContext) -> dict[str, Any]:
    pattern, flags = _python(g.name, "pattern", g.pattern, g.flags)
    out: dict[str, Any] = {"type": "output_matches", "pattern": pattern}
    if flags:
        out["flags"] = flags
    target = g.target
    if isinstance(target, FileTarget):
        out.update(source="file", path=_workspace_path(g.name, "target.path", target.path))
    elif target == "mock_calls":
        raise GraderRefusedError(g.name, "target", NO_MOCKS)
    else:
        out["source"] = {"last_message": "reply", "trace": "transcript", "files": "created_files"}[target]
        if target == "trace":
            ctx.losses.append(
                f"grader {g.name!r}: the trace is our transcript as JSON lines, not Claude Code's trace format; "
                "a pattern over that format's structure may not match"
            )
    if g.match == "not_contains":
        out["match"] = "absent"
    elif g.match.startswith("count:"):
        out.update(match="count", count=int(g.match.split(":", 1)[1]))
    return out


def _skill_named(ref: str | None, ctx: GraderContext) -> str | None:
    """The one skill an input pattern names (`greet`, `plugin:greet`), or the plugin's only skill."""
    if ref is None:
        return ctx.skills[0] if len(ctx.skills) == 1 else None
    match = _SKILL_NAME.match(ref)
    return match.group(1) if match else None


def _tool_used(g: ToolUsedGrader, ctx: GraderContext) -> dict[str, Any]:
    low, high = (1 if g.min is None else g.min), g.max
    if g.tool == "Skill":
        skill = _skill_named(g.input_match, ctx)
        if skill is not None and high is None and low == 1:
            return {"type": "skill_triggered", "skill_name": skill, "expected_skill": skill}
        if skill is not None and low == 0 and high == 0:
            return {"type": "skill_triggered", "skill_name": skill, "expected_skill": ""}
        ctx.losses.append(
            f"grader {g.name!r}: counts Skill tool calls; agents without a Skill tool (they read SKILL.md) never match"
        )
    out: dict[str, Any] = {"type": "command_executed", "tool_name": g.tool, "min_count": low}
    if high is not None:
        if high < low:
            raise GraderRefusedError(g.name, "max", f"max ({high}) is below min ({low}): no count passes")
        out["max_count"] = high
    if g.input_match is not None:
        out["command_pattern"] = _python(g.name, "input_match", g.input_match)[0]
        if _JSON_CHARS.search(g.input_match):
            ctx.losses.append(
                f"grader {g.name!r}: input_match is matched against the command (shell tools) or key=value pairs, "
                "not the call's JSON"
            )
    if low > 1:
        ctx.losses.append(f"grader {g.name!r}: fewer than {low} calls earn partial credit here (0 in the format)")
    if g.tool.startswith("mcp__"):
        ctx.losses.append(f"grader {g.name!r}: {g.tool} is Claude Code's name for the tool; other agents' calls differ")
    return out


def _call(g: ToolOrderGrader, ref: ToolRef, field_name: str, ctx: GraderContext) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": ref.tool}
    if ref.input_match is not None:
        out["pattern"] = _python(g.name, f"{field_name}.input_match", ref.input_match)[0]
    if ref.tool == "Skill":
        ctx.losses.append(f"grader {g.name!r}: a Skill filter counts Skill tool calls only, not reads of SKILL.md")
    return out


def _judge(prompt: str, **blocks: Any) -> dict[str, Any]:
    return {"type": "llm_judge", "prompt": prompt, "include_reference": False, "pass_threshold": 0.5, **blocks}


def _llm(g: LlmGrader, ctx: GraderContext) -> dict[str, Any]:
    prompt = f"Grade the coding agent's work against this criterion. {JUDGE_SCALE}\n\nCriterion:\n{g.criteria}"
    focus = g.focus
    ctx.losses.append(f"grader {g.name!r}: one judge verdict (passing at 0.5) stands for the format's three votes")
    if isinstance(focus, FileTarget):
        return _judge(prompt, files=[_workspace_path(g.name, "focus.path", focus.path)])
    if focus == "mock_calls":
        raise GraderRefusedError(g.name, "focus", NO_MOCKS)
    if focus == "last_message":
        return _judge(prompt, include_agent_output=True)
    what = "the full trace" if focus == "trace" else "the list of files the run created"
    ctx.losses.append(f"grader {g.name!r}: the judge sees the last reply and the tool calls, not {what}")
    return _judge(prompt, include_agent_output=True, include_tool_calls=True)


def _baseline(g: BaselineGrader, ctx: GraderContext) -> dict[str, Any]:
    rel = PurePosixPath(g.baseline_file.replace("\\", "/"))
    source = (ctx.case_dir / rel).resolve()
    if rel.is_absolute() or not source.is_relative_to(ctx.case_dir.resolve()):
        raise GraderRefusedError(g.name, "baseline_file", f"{g.baseline_file!r} is outside the case directory")
    if not source.is_file():
        raise GraderRefusedError(g.name, "baseline_file", f"{g.baseline_file!r} does not exist in the case directory")
    target = ctx.task_dir / "baseline" / rel.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    prompt = (
        f"The file baseline/{rel.name} holds a baseline trajectory of another run of this task, one JSON message a "
        "line. Decide whether the coding agent's work satisfies the criterion at least as well as the baseline does. "
        f"{JUDGE_SCALE}\n\nCriterion:\n{g.criteria}"
    )
    ctx.losses.append(f"grader {g.name!r}: one judge verdict (passing at 0.5) stands for the format's three votes")
    return _judge(prompt, files=[f"$TASK_DIR/baseline/{rel.name}"], include_agent_output=True, include_tool_calls=True)


def _describe(g: Grader) -> str:
    if isinstance(g, RegexGrader):
        what = f"regex {g.pattern!r}"
    elif isinstance(g, ToolUsedGrader):
        what = f"tool {g.tool} used"
    elif isinstance(g, ToolOrderGrader):
        what = f"{g.before.tool} before {g.after.tool}"
    elif isinstance(g, FileExistsGrader):
        what = f"file {g.path} {'created' if g.exists else 'absent'}"
    elif isinstance(g, LlmGrader):
        what = "judged"
    else:
        what = "judged against the baseline"
    return f"{g.name}: {what}"[:300]


def criterion_for(g: Grader, ctx: GraderContext) -> dict[str, Any]:
    """The criterion mapping for one grader (GraderRefusedError when it cannot be carried)."""
    if isinstance(g, RegexGrader):
        body = _regex(g, ctx)
    elif isinstance(g, ToolUsedGrader):
        body = _tool_used(g, ctx)
    elif isinstance(g, ToolOrderGrader):
        body = {
            "type": "tool_order",
            "first": _call(g, g.before, "before", ctx),
            "then": _call(g, g.after, "after", ctx),
        }
    elif isinstance(g, FileExistsGrader):
        body = {"type": "file_created", "path": _workspace_path(g.name, "path", g.path), "exists": g.exists}
    elif isinstance(g, LlmGrader):
        body = _llm(g, ctx)
    else:
        body = _baseline(g, ctx)
    description = _describe(g)
    weight = g.weight
    if ctx.with_only_informational and is_with_only(g):
        weight, description = 0.0, f"{description} (with-only indicator, not scored)"
    out: dict[str, Any] = {"description": description, **body, "weight": weight}
    out.setdefault("pass_threshold", 1.0)
    return out
