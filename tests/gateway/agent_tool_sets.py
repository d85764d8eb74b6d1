"""Tool sets as each agent sends them (minimal, realistic schemas), and helpers to play steps against them."""

from __future__ import annotations

import asyncio
from typing import Any

from coder_eval.agents.vocabularies import (
    ANTHROPIC_API_TOOLS,
    CLAUDE_CODE_TOOLS,
    CODEX_TOOLS,
    GEMINI_CLI_TOOLS,
    OPENCODE_TOOLS,
    PI_TOOLS,
)
from coder_eval.gateway.script import ScriptedModel
from coder_eval.gateway.script_file import parse_script
from coder_eval.gateway.script_model import (
    Script,
)
from coder_eval.gateway.types import Message, ModelReply, ModelRequest, ToolSpec
from coder_eval.models.tools import ToolVocabulary

CWD = "/work/sbx"

# --- tool sets as each agent sends them (minimal, realistic schemas) -----------------------------


def tool(name: str, props: dict[str, Any], required: list[str] | None = None) -> ToolSpec:
    schema = {"type": "object", "properties": props, "required": required if required is not None else list(props)}
    return ToolSpec(name=name, description=f"{name} tool", input_schema=schema)


def s(description: str = "") -> dict[str, Any]:
    return {"type": "string", "description": description}


ABS = "The absolute path to the file to write (must be absolute, not relative)"

CLAUDE = [
    tool("Write", {"file_path": s(ABS), "content": s("The content to write to the file")}),
    tool(
        "Edit",
        {
            "file_path": s("The absolute path to the file to modify"),
            "old_string": s("The text to replace"),
            "new_string": s("The text to replace it with"),
            "replace_all": {"type": "boolean", "default": False},
        },
        ["file_path", "old_string", "new_string"],
    ),
    tool(
        "Read", {"file_path": s("The absolute path to the file to read"), "offset": {"type": "number"}}, ["file_path"]
    ),
    tool(
        "Bash",
        {"command": s("The command to execute"), "description": s(), "timeout": {"type": "number"}},
        ["command"],
    ),
    tool("Skill", {"skill": s("The skill name")}),
]
CLAUDE_SYSTEM = f"You are Claude Code.\n<env>\nWorking directory: {CWD}\nIs directory a git repo: No\n</env>"

CODEX = [
    tool(
        "shell",
        {"command": {"type": "array", "items": {"type": "string"}}, "workdir": s(), "timeout_ms": {"type": "number"}},
        ["command"],
    ),
    tool("apply_patch", {"input": s("The entire contents of the apply_patch command")}),
]
CODEX_USER = f"<environment_context>\n  <cwd>{CWD}</cwd>\n  <shell>bash</shell>\n</environment_context>"

GEMINI = [
    tool(
        "write_file",
        {
            "file_path": s("The absolute path to the file to write to. Relative paths are not supported."),
            "content": s(),
        },
    ),
    tool(
        "replace",
        {"file_path": s("The absolute path to the file to modify."), "old_string": s(), "new_string": s()},
    ),
    tool("run_shell_command", {"command": s("Exact bash command"), "description": s(), "directory": s()}, ["command"]),
    tool("read_file", {"absolute_path": s("The absolute path to the file to read.")}),
]
GEMINI_USER = f"Today's date is Monday.\nMy operating system is: linux\nI'm currently working in the directory: {CWD}\n"

OPENCODE = [
    tool("write", {"filePath": s(ABS), "content": s()}),
    tool("edit", {"filePath": s("The absolute path to the file to modify"), "oldString": s(), "newString": s()}),
    tool("bash", {"command": s(), "description": s("Clear, concise description in 5-10 words")}),
    tool("read", {"filePath": s("The path to the file to read")}),
]
OPENCODE_SYSTEM = f"<env>\n  Working directory: {CWD}\n  Is directory a git repo: no\n</env>"

PI = [
    tool("read", {"path": s("Path to the file to read (relative or absolute)")}),
    tool("write", {"path": s("Path to the file to write (relative or absolute)"), "content": s()}),
    tool("edit", {"path": s("Path to the file to edit (relative or absolute)"), "oldText": s(), "newText": s()}),
    tool("bash", {"command": s("Bash command to execute")}),
]
PI_SYSTEM = f"You are an expert coding assistant.\nCurrent working directory: {CWD}"

EDITOR = [
    tool(
        "str_replace_based_edit_tool",
        {
            "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert"]},
            "path": s("Absolute path to file or directory, e.g. `/repo/file.py`."),
            "file_text": s(),
            "old_str": s(),
            "new_str": s(),
        },
        ["command", "path"],
    )
]

AGENTS: dict[str, tuple[list[ToolSpec], str, str, ToolVocabulary]] = {
    "claude": (CLAUDE, CLAUDE_SYSTEM, "Write a file", CLAUDE_CODE_TOOLS),
    "codex": (CODEX, "You are Codex.", CODEX_USER, CODEX_TOOLS),
    "gemini": (GEMINI, "You are Gemini CLI.", GEMINI_USER, GEMINI_CLI_TOOLS),
    "opencode": (OPENCODE, OPENCODE_SYSTEM, "Write a file", OPENCODE_TOOLS),
    "pi": (PI, PI_SYSTEM, "Write a file", PI_TOOLS),
    "editor": (EDITOR, CLAUDE_SYSTEM, "Write a file", ANTHROPIC_API_TOOLS),
}


def first_request(agent: str) -> ModelRequest:
    tools, system, user, _ = AGENTS[agent]
    return ModelRequest(protocol="test", model="m", messages=[Message("user", user)], tools=tools, system=system)


def scripted(script: Script, agent: str = "claude", **kwargs: Any) -> ScriptedModel:
    """A scripted model speaking `agent`'s tool vocabulary."""
    return ScriptedModel(script, vocabulary=AGENTS[agent][3], **kwargs)


def play(script: Script, agent: str = "claude", **kwargs: Any) -> tuple[ScriptedModel, ModelReply]:
    model = scripted(script, agent, **kwargs)
    return model, asyncio.run(model.reply(first_request(agent)))


def one_step(step: dict[str, Any]) -> Script:
    return parse_script({"steps": [step]}, "test.script.yaml")


WRITE = {"write_file": {"path": "src/a.py", "content": "print(1)\n"}}
EDIT_LINE = {"edit_file": {"path": "a.py", "old": "x = 1\n", "new": "x = 2\n"}}
EDIT_PART = {"edit_file": {"path": "a.py", "old": "1", "new": "2"}}
READ = {"read_file": "a.py"}
RUN = {"run_command": "pytest -q"}
SKILL = {"invoke_skill": "pdf"}

ADD_PATCH = "*** Begin Patch\n*** Add File: src/a.py\n+print(1)\n*** End Patch"
UPDATE_PATCH = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
PY_EDIT_PREFIX = "python3 -c "


def bash(cmd: str) -> dict[str, Any]:
    return {"command": ["bash", "-lc", cmd]}
