"""Will the agent's permissions let it do what the criteria look for? Warnings for `plan` and `lint`.

A criterion that counts shell commands (`cli_called`, `command_executed` or `tool_order` on a shell tool) or a
skill call (`skill_triggered` expecting the skill) can only pass if the agent may run that tool.
Each agent's permission layer decides that from `permission_mode`, `allowed_tools` and
`disallowed_tools`; what each kind does by default is written down in docs/agents/. This module
reads the resolved agent block and names the criterion that would be starved, so a task that
cannot pass says so before a run instead of failing with a plausible score.
"""

from __future__ import annotations

from collections.abc import Iterable

from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.criteria import BaseCriterion
from coder_eval.models.tools import CRITERION_TOOL_NAMES

CLAUDE_SAFE_SHELL_NOTE = (
    "Claude Code under default/acceptEdits runs only the shell commands it deems safe and answers "
    "the rest with 'This command requires approval'"
)


def _needs(criterion: BaseCriterion) -> str | None:
    """The tool kind a criterion needs the agent to call (shell or skill), or None."""
    kind = criterion.type
    if kind == "cli_called":
        return "shell"
    if kind == "command_executed":
        tool = getattr(criterion, "tool_name", None)
        wanted = int(getattr(criterion, "min_count", 1) or 0)
        if wanted and (tool is None or CRITERION_TOOL_NAMES.get(str(tool)) == "shell" or str(tool) == "shell"):
            return "shell"
        return None
    if kind == "tool_order":
        tools = [str(getattr(getattr(criterion, part, None), "tool", "")) for part in ("first", "then")]
        return "shell" if any(t == "shell" or CRITERION_TOOL_NAMES.get(t) == "shell" for t in tools) else None
    if kind == "skill_triggered":
        expected = str(getattr(criterion, "expected_skill", "")).strip()
        return "skill" if expected and expected == getattr(criterion, "skill_name", None) else None
    return None


def _listed(names: Iterable[str] | None, tool: str) -> bool:
    """`Bash` or a pattern such as `Bash(git:*)` in a tool list."""
    return any(n == tool or n.startswith(tool + "(") for n in names or ())


def _claude_refusal(agent: BaseAgentConfig, needs: str, criterion_type: str) -> str | None:
    tool = "Bash" if needs == "shell" else "Skill"
    if _listed(agent.disallowed_tools, tool):
        return f"agent.disallowed_tools lists {tool}"
    mode = agent.permission_mode
    if mode == "bypassPermissions":
        return None
    if mode == "plan":
        return "permission_mode plan refuses commands and edits"
    allowed = agent.allowed_tools
    if allowed is not None and not _listed(allowed, tool):
        return f"agent.allowed_tools does not list {tool}"
    # With no allowlist, read-only commands (cat, ls) still run; a user's own CLI, which is what
    # cli_called counts, is refused: that case is certain enough to warn about.
    if needs == "shell" and allowed is None and criterion_type == "cli_called":
        return f"{CLAUDE_SAFE_SHELL_NOTE}; agent.allowed_tools is unset"
    return None


def _other_refusal(agent: BaseAgentConfig, needs: str) -> str | None:
    if needs != "shell":
        return None
    denied = {n.lower() for n in agent.disallowed_tools or []}
    if denied & {"bash", "shell", "run_shell_command", "exec_command"}:
        return "agent.disallowed_tools removes the shell tool"
    if agent.permission_mode == "plan":
        return f"{agent.type} in permission_mode plan offers no shell tool (or runs it read-only)"
    return None


_FIXES = {
    ("shell", True): "add Bash (or a pattern like Bash(mycli:*)) to agent.allowed_tools, "
    "or use permission_mode: bypassPermissions",
    ("skill", True): "add Skill to agent.allowed_tools",
}


def refusal_warnings(criteria: Iterable[BaseCriterion], agent: BaseAgentConfig) -> list[str]:
    """One line per criterion the agent's permissions would keep from passing."""
    warnings: list[str] = []
    for i, criterion in enumerate(criteria):
        needs = _needs(criterion)
        if needs is None:
            continue
        if agent.type == "claude-code":
            why = _claude_refusal(agent, needs, criterion.type)
        else:
            why = _other_refusal(agent, needs)
        if why is None:
            continue
        fix = _FIXES.get((needs, agent.type == "claude-code"), "let the agent use its shell tool")
        warnings.append(
            f"success_criteria[{i}] {criterion.type} needs the agent to call its {needs} tool, but {why}: "
            f"such calls are refused and never count ({fix})"
        )
    return warnings
