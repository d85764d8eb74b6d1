"""The tool vocabulary of each built-in agent kind: its tool names by canonical kind and its argument keys.

The scripted model reads these to put a script step on the agent's own tool with the agent's
own argument names (the gateway holds no agent's names); events read them to give every raw
tool name its canonical kind. Names are compared loosely (`Bash` == `bash`, `filePath` ==
`file_path`); within one kind the first listed tool is preferred.
"""

from __future__ import annotations

from typing import Any

from coder_eval.models.tools import ToolVocabulary

_STRING: dict[str, Any] = {"type": "string"}
_TEXT_EDITOR_SCHEMA: dict[str, Any] = {
    "properties": {
        "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "undo_edit"]},
        "path": {"type": "string", "description": "Absolute path to file or directory."},
        "file_text": _STRING,
        "old_str": _STRING,
        "new_str": _STRING,
    },
    "required": ["command", "path"],
}

CLAUDE_CODE_TOOLS = ToolVocabulary(
    tools={
        "Bash": "shell",
        "BashOutput": "other",
        "KillShell": "other",
        "Write": "write",
        "Edit": "edit",
        "MultiEdit": "edit",
        "NotebookEdit": "edit",
        "Read": "read",
        "Glob": "search",
        "Grep": "search",
        "LS": "list",
        "WebFetch": "fetch",
        "WebSearch": "fetch",
        "Task": "task",
        "Agent": "task",
        "TodoWrite": "todo",
        "Skill": "skill",
        "SlashCommand": "other",
        "ExitPlanMode": "other",
    },
    arguments={
        "path": ("file_path",),
        "content": ("content",),
        "old": ("old_string",),
        "new": ("new_string",),
        "command": ("command",),
        "skill": ("skill", "command"),
    },
)
"""Claude Code's built-in tools (PascalCase names, snake_case arguments)."""

ANTHROPIC_API_TOOLS = ToolVocabulary(
    tools={
        "str_replace_based_edit_tool": "edit",
        "str_replace_editor": "edit",
        "bash": "shell",
    },
    arguments={
        "path": ("path",),
        "content": ("file_text",),
        "old": ("old_str",),
        "new": ("new_str",),
        "command": ("command",),
    },
    schemas={
        "str_replace_based_edit_tool": _TEXT_EDITOR_SCHEMA,
        "str_replace_editor": _TEXT_EDITOR_SCHEMA,
        "bash": {"properties": {"command": _STRING}, "required": ["command"]},
    },
)
"""Anthropic's provider-defined text editor and bash tools, which a Messages API client may declare
by type alone (no schema): an agent built directly on that API uses this vocabulary."""

CODEX_TOOLS = ToolVocabulary(
    tools={
        "shell": "shell",
        "exec_command": "shell",
        "local_shell": "shell",
        "shell_command": "shell",
        "write_stdin": "other",
        "apply_patch": "patch",
        "update_plan": "todo",
        "view_image": "other",
        "web_search": "fetch",
    },
    arguments={"command": ("command", "cmd"), "patch": ("input", "patch")},
    schemas={
        "local_shell": {"properties": {"command": {"type": "array", "items": _STRING}}, "required": ["command"]},
        "apply_patch": {"properties": {"input": _STRING}, "required": ["input"]},
    },
)
"""OpenAI Codex: a shell (argv or command line) and the freeform `apply_patch`; it has no file tools."""

OPENCODE_TOOLS = ToolVocabulary(
    tools={
        "bash": "shell",
        "write": "write",
        "edit": "edit",
        "patch": "edit",
        "read": "read",
        "glob": "search",
        "grep": "search",
        "list": "list",
        "webfetch": "fetch",
        "task": "task",
        "todowrite": "todo",
        "todoread": "todo",
        "skill": "skill",
    },
    arguments={
        "path": ("filePath", "path"),
        "content": ("content",),
        "old": ("oldString",),
        "new": ("newString",),
        "command": ("command",),
        "skill": ("name",),
    },
)
"""OpenCode: lower-case tool names, camelCase arguments (`filePath` in older builds, `path` in newer)."""

GEMINI_CLI_TOOLS = ToolVocabulary(
    tools={
        "run_shell_command": "shell",
        "write_file": "write",
        "replace": "edit",
        "read_file": "read",
        "read_many_files": "read",
        "glob": "search",
        "search_file_content": "search",
        "list_directory": "list",
        "web_fetch": "fetch",
        "google_web_search": "fetch",
        "write_todos": "todo",
        "save_memory": "other",
        "activate_skill": "skill",
    },
    arguments={
        "path": ("file_path", "absolute_path"),
        "content": ("content",),
        "old": ("old_string",),
        "new": ("new_string",),
        "command": ("command",),
        "skill": ("name",),
    },
)
"""Gemini CLI: snake_case names; `read_file` takes `absolute_path` in older builds, `file_path` in newer."""

PI_TOOLS = ToolVocabulary(
    tools={
        "bash": "shell",
        "read": "read",
        "write": "write",
        "edit": "edit",
        "grep": "search",
        "find": "search",
        "ls": "list",
    },
    arguments={
        "path": ("path",),
        "content": ("content",),
        "old": ("oldText",),
        "new": ("newText",),
        "command": ("command",),
    },
)
"""Pi: lower-case names; paths may be relative (its schemas say so)."""

ANTIGRAVITY_TOOLS = ToolVocabulary(
    tools={
        "run_command": "shell",
        "write_to_file": "write",
        "create_file": "write",
        "replace_file_content": "edit",
        "multi_replace_file_content": "edit",
        "edit_file": "edit",
        "view_file": "read",
        "grep_search": "search",
        "search_directory": "search",
        "find_by_name": "search",
        "find_file": "search",
        "list_dir": "list",
        "list_directory": "list",
        "invoke_subagent": "task",
        "start_subagent": "task",
        "search_web": "fetch",
        "read_url_content": "fetch",
        "manage_task": "other",
    },
    arguments={
        "path": ("TargetFile", "AbsolutePath", "file_path", "path"),
        "content": ("CodeContent", "content"),
        "old": ("TargetContent",),
        "new": ("ReplacementContent",),
        "command": ("CommandLine", "command_line", "command"),
    },
    defaults={
        # The harness runs a command in `Cwd` and waits this long before moving it to the background.
        "run_command": {"Cwd": "{cwd}", "WaitMsBeforeAsync": 10000},
        "write_to_file": {"Overwrite": True},
        "replace_file_content": {"StartLine": 1, "EndLine": 100000, "AllowMultiple": False},
    },
)
"""Google Antigravity's local harness: snake_case names, PascalCase arguments (`TargetFile`,
`CodeContent`, `CommandLine`); its events report some arguments in snake_case (`command_line`)."""
