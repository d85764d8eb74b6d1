"""Placeholder, replaced by the gateway split: per-agent tool vocabularies."""

from __future__ import annotations

from coder_eval.models.tools import GENERIC_ARGUMENTS, ToolVocabulary

CLAUDE_CODE_TOOLS = ToolVocabulary(
    tools={"Bash": "shell", "Write": "write", "Edit": "edit", "Read": "read", "Skill": "skill"},
    arguments=GENERIC_ARGUMENTS,
)
CODEX_TOOLS = ToolVocabulary(arguments=GENERIC_ARGUMENTS)
OPENCODE_TOOLS = ToolVocabulary(arguments=GENERIC_ARGUMENTS)
PI_TOOLS = ToolVocabulary(arguments=GENERIC_ARGUMENTS)
ANTIGRAVITY_TOOLS = ToolVocabulary(arguments=GENERIC_ARGUMENTS)
