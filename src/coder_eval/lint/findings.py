"""Lint findings and the rule catalog: every rule has an id, a default severity and a fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

Severity = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Rule:
    rule_id: str
    name: str
    severity: Severity
    summary: str
    fix: str


RULES: dict[str, Rule] = {
    r.rule_id: r
    for r in (
        Rule(
            "CE101",
            "prompt-leaks-expected",
            "warning",
            "The prompt contains, word for word, a string a criterion looks for.",
            "Describe the behaviour in the prompt and let the criterion check an outcome the agent must compute.",
        ),
        Rule(
            "CE102",
            "all-informational",
            "error",
            "Every criterion has weight 0, so nothing gates and the task cannot fail.",
            "Give at least one criterion a positive weight.",
        ),
        Rule(
            "CE103",
            "file-exists-only-gate",
            "warning",
            "The only gating criteria are file_exists: an empty file scores full marks.",
            "Add a criterion on the file's content or behaviour (file_contains, json_check, run_command).",
        ),
        Rule(
            "CE104",
            "echoable-text-check",
            "warning",
            "Every gating check looks for text the agent can simply write or echo; nothing runs the result.",
            "Add a run_command that executes the work, or check output the agent has to compute.",
        ),
        Rule(
            "CE105",
            "near-duplicate",
            "warning",
            "Two tasks have almost the same prompt and the same kinds of criteria.",
            "Merge them into a dataset task, or make the second one test something the first does not.",
        ),
        Rule(
            "CE106",
            "fixture-without-cleanup",
            "warning",
            "A pre_run command starts a background process and no post_run command stops it.",
            "Add a post_run command that stops what pre_run started (kill the PID it recorded).",
        ),
        Rule(
            "CE107",
            "ignored-or-legacy-key",
            "warning",
            "The task file has a key this version ignores (unknown or no longer used) or a legacy form it "
            "reads under another name.",
            "Fix the key's spelling or remove it; `coder-eval migrate FILE` rewrites legacy forms and stale keys.",
        ),
        Rule(
            "CE108",
            "tool-refused",
            "warning",
            "A criterion counts calls to a tool the agent's permissions refuse, so it cannot pass.",
            "Allow the tool (agent.allowed_tools, e.g. Bash or Bash(mycli:*)) or change permission_mode.",
        ),
        Rule(
            "CE109",
            "agent-code-sees-reference",
            "warning",
            "A criterion that is shown the reference runs code, which may be the agent's: that code can "
            "read the reference while it runs.",
            "Keep reference-reading steps to comparison tools (diff, cmp, grep), or give the agent's code "
            "its inputs without the reference: copy only what the check needs into $TASK_DIR, run the "
            "agent's code in one criterion and compare its output with the reference in another.",
        ),
        Rule(
            "CE201",
            "passes-without-agent",
            "error",
            "With no agent at all (type none), the task already succeeds: its criteria cannot fail.",
            "Check something only the agent's work can produce, or move pre-existing files out of the sandbox.",
        ),
        Rule(
            "CE202",
            "oracle-fails",
            "error",
            "The reference solution does not pass the file and command criteria: they cannot succeed.",
            "Fix the criterion (path, expected text, threshold) or the reference solution.",
        ),
        Rule(
            "CE203",
            "lint-run-error",
            "error",
            "A lint run of the task ended in ERROR, so the task cannot be graded as written.",
            "Run `coder-eval run TASK -T none` and read the task's error message.",
        ),
        Rule(
            "CE204",
            "criterion-passes-without-agent",
            "note",
            "A gating criterion passes with no agent; fine for a guard (a file must stay unchanged), "
            "suspicious otherwise.",
            "Make sure the criterion is a guard; otherwise check something the agent must do.",
        ),
        Rule(
            "CE205",
            "no-oracle",
            "note",
            "The task has no reference solution, so lint cannot show its criteria can pass.",
            "Add `reference: {directory: reference}` with a solution, or check it with --agent-oracle "
            "(scripted run of a reference).",
        ),
    )
}


class Finding(BaseModel):
    """One problem in one task file."""

    rule_id: str = Field(description="Stable rule id, e.g. CE201.")
    rule: str = Field(description="Rule name.")
    severity: Severity = Field(description="error fails the lint; warning and note do not.")
    file: str = Field(description="The task file.")
    line: int = Field(1, description="1-based line of the field the finding is about.")
    task_id: str = Field(description="The task (or dataset row, suite/row) concerned.")
    message: str = Field(description="What is wrong, specifically.")
    fix: str = Field(description="How to fix it.")


def finding(rule_id: str, *, file: str, line: int, task_id: str, message: str) -> Finding:
    rule = RULES[rule_id]
    return Finding(
        rule_id=rule_id,
        rule=rule.name,
        severity=rule.severity,
        file=file,
        line=max(1, line),
        task_id=task_id,
        message=message,
        fix=rule.fix,
    )
