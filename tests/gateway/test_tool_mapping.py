"""Script steps mapped onto each agent's tools, found by the agent's tool vocabulary."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agent_tool_sets import (
    ADD_PATCH,
    CLAUDE,
    CWD,
    EDIT_LINE,
    EDIT_PART,
    PY_EDIT_PREFIX,
    READ,
    RUN,
    SKILL,
    UPDATE_PATCH,
    WRITE,
    bash,
    one_step,
    play,
    s,
    scripted,
    tool,
)

from coder_eval.agents.vocabularies import (
    ANTHROPIC_API_TOOLS,
    ANTIGRAVITY_TOOLS,
    CLAUDE_CODE_TOOLS,
    CODEX_TOOLS,
    GEMINI_CLI_TOOLS,
    OPENCODE_TOOLS,
    PI_TOOLS,
)
from coder_eval.gateway.script_file import parse_script
from coder_eval.gateway.script_model import (
    EditFile,
    InvokeSkill,
    ReadFile,
    RunCommand,
    ToolAction,
    WriteFile,
)
from coder_eval.gateway.script_text import shell_write
from coder_eval.gateway.tool_mapping import ToolMapper, UnmappableStepError
from coder_eval.gateway.types import GatewayError, Message, ModelRequest, ToolSpec
from coder_eval.models.tools import ToolVocabulary

MAPPING_CASES: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
    ("claude", WRITE, "Write", {"file_path": f"{CWD}/src/a.py", "content": "print(1)\n"}),
    ("claude", EDIT_PART, "Edit", {"file_path": f"{CWD}/a.py", "old_string": "1", "new_string": "2"}),
    ("claude", READ, "Read", {"file_path": f"{CWD}/a.py"}),
    ("claude", RUN, "Bash", {"command": "pytest -q"}),
    ("claude", SKILL, "Skill", {"skill": "pdf"}),
    ("codex", WRITE, "apply_patch", {"input": ADD_PATCH}),
    ("codex", EDIT_LINE, "apply_patch", {"input": UPDATE_PATCH}),
    ("codex", READ, "shell", bash("cat -- a.py")),
    ("codex", RUN, "shell", bash("pytest -q")),
    ("codex", SKILL, "shell", bash("cat -- skills/pdf/SKILL.md")),
    ("gemini", WRITE, "write_file", {"file_path": f"{CWD}/src/a.py", "content": "print(1)\n"}),
    ("gemini", EDIT_PART, "replace", {"file_path": f"{CWD}/a.py", "old_string": "1", "new_string": "2"}),
    ("gemini", READ, "read_file", {"absolute_path": f"{CWD}/a.py"}),
    ("gemini", RUN, "run_shell_command", {"command": "pytest -q"}),
    ("gemini", SKILL, "read_file", {"absolute_path": f"{CWD}/skills/pdf/SKILL.md"}),
    ("opencode", WRITE, "write", {"filePath": f"{CWD}/src/a.py", "content": "print(1)\n"}),
    ("opencode", EDIT_PART, "edit", {"filePath": f"{CWD}/a.py", "oldString": "1", "newString": "2"}),
    ("opencode", READ, "read", {"filePath": "a.py"}),
    ("opencode", RUN, "bash", {"command": "pytest -q", "description": "pytest -q"}),
    ("pi", WRITE, "write", {"path": "src/a.py", "content": "print(1)\n"}),
    ("pi", EDIT_PART, "edit", {"path": "a.py", "oldText": "1", "newText": "2"}),
    ("pi", READ, "read", {"path": "a.py"}),
    ("pi", RUN, "bash", {"command": "pytest -q"}),
    ("pi", SKILL, "read", {"path": "skills/pdf/SKILL.md"}),
    (
        "editor",
        WRITE,
        "str_replace_based_edit_tool",
        {"command": "create", "path": f"{CWD}/src/a.py", "file_text": "print(1)\n"},
    ),
    (
        "editor",
        EDIT_PART,
        "str_replace_based_edit_tool",
        {"command": "str_replace", "path": f"{CWD}/a.py", "old_str": "1", "new_str": "2"},
    ),
    ("editor", READ, "str_replace_based_edit_tool", {"command": "view", "path": f"{CWD}/a.py"}),
]


@pytest.mark.parametrize(("agent", "step", "tool_name", "arguments"), MAPPING_CASES)
def test_step_maps_onto_the_agents_tool(agent: str, step: dict[str, Any], tool_name: str, arguments: Any) -> None:
    _, reply = play(one_step(step), agent)
    assert reply.stop_reason == "tool_use"
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("call_0_0", tool_name, arguments)]


def test_codex_partial_line_edit_goes_through_the_shell_exactly(tmp_path: Path) -> None:
    _, reply = play(one_step({"edit_file": {"path": "a.py", "old": "= 1", "new": "= 'two'"}}), "codex")
    call = reply.tool_calls[0]
    assert call.name == "shell"
    assert call.arguments["command"][:2] == ["bash", "-lc"]
    assert call.arguments["command"][2].startswith(PY_EDIT_PREFIX)
    (tmp_path / "a.py").write_text("x = 1\ny = 1\n")
    subprocess.run(call.arguments["command"], cwd=tmp_path, check=True)
    assert (tmp_path / "a.py").read_text() == "x = 'two'\ny = 1\n"


def test_explicit_cwd_wins_over_the_prompt() -> None:
    _, reply = play(one_step(READ), "claude", cwd="/elsewhere")
    assert reply.tool_calls[0].arguments == {"file_path": "/elsewhere/a.py"}


def test_absolute_script_paths_are_kept_and_unknown_cwd_keeps_relative_paths() -> None:
    request = ModelRequest(protocol="t", model="m", messages=[Message("user", "go")], tools=CLAUDE)
    model = scripted(parse_script({"steps": [READ, {"read_file": "/etc/hosts"}]}, "x"))
    first = asyncio.run(model.reply(request))
    assert first.tool_calls[0].arguments == {"file_path": "a.py"}
    assert ToolMapper(CLAUDE, None, CLAUDE_CODE_TOOLS).read("/etc/hosts") == ("Read", {"file_path": "/etc/hosts"})


def test_schemaless_provider_tools_get_their_known_arguments() -> None:
    tools = [ToolSpec("str_replace_based_edit_tool"), ToolSpec("local_shell")]
    mapper = ToolMapper(tools, CWD, ANTHROPIC_API_TOOLS.merged(CODEX_TOOLS))
    assert mapper.write(WriteFile(path="a", content="x")) == (
        "str_replace_based_edit_tool",
        {"command": "create", "path": f"{CWD}/a", "file_text": "x"},
    )
    assert mapper.run("ls") == ("local_shell", bash("ls"))


SHELL_ONLY = [tool("bash", {"command": s()})]
WRITE_CONTENTS = ["a\nb\n", "no newline", "", "EOF\nCODER_EVAL_EOF_0\n$HOME `x` 'q'\n", "\n\n", "trail\n\n"]


@pytest.mark.parametrize("content", WRITE_CONTENTS)
def test_shell_fallback_writes_exact_content(tmp_path: Path, content: str) -> None:
    name, args = ToolMapper(SHELL_ONLY, CWD).write(WriteFile(path="d/e/f.txt", content=content))
    assert name == "bash"
    subprocess.run(["bash", "-c", args["command"]], cwd=tmp_path, check=True)
    assert (tmp_path / "d/e/f.txt").read_text() == content


def test_shell_fallback_survives_gemini_style_wrapping(tmp_path: Path) -> None:
    command = shell_write("f.txt", "line\n").strip()
    subprocess.run(["bash", "-c", f"{{ {command}; }}; __code=$?; exit $__code;"], cwd=tmp_path, check=True)
    assert (tmp_path / "f.txt").read_text() == "line\n"


FALLBACK_CASES: list[tuple[ToolAction, str]] = [
    (EditFile(path="a.py", old="1", new="2"), PY_EDIT_PREFIX),
    (ReadFile(path="a.py"), "cat -- a.py"),
    (InvokeSkill(name="plugin:pdf"), "cat -- skills/pdf/SKILL.md"),
    (InvokeSkill(name="pdf", path=".claude/skills/pdf/SKILL.md"), "cat -- .claude/skills/pdf/SKILL.md"),
    (RunCommand(command="ls"), "ls"),
]


@pytest.mark.parametrize(("action", "prefix"), FALLBACK_CASES)
def test_shell_fallback_for_every_action(action: ToolAction, prefix: str) -> None:
    name, args = ToolMapper(SHELL_ONLY, CWD).map(action)
    assert name == "bash"
    assert args["command"].startswith(prefix)


def test_no_usable_tool_is_a_clear_400() -> None:
    request = ModelRequest(
        protocol="t", model="m", messages=[Message("user", "go")], tools=[tool("WebSearch", {"query": s()})]
    )
    model = scripted(one_step(WRITE))
    with pytest.raises(GatewayError) as info:
        asyncio.run(model.reply(request))
    assert info.value.status == 400
    assert "script step 0 (write_file src/a.py)" in info.value.message
    assert "WebSearch" in info.value.message
    assert model.position == 0


def test_unknown_required_arguments_get_placeholders() -> None:
    tools = [
        tool("run_shell_command", {"command": s(), "why": s(), "mode": {"enum": ["a", "b"]}, "n": {"type": "integer"}})
    ]
    assert ToolMapper(tools, None, GEMINI_CLI_TOOLS).run("ls") == (
        "run_shell_command",
        {"command": "ls", "why": "ls", "mode": "a", "n": 0},
    )


def test_tools_are_found_by_the_agents_vocabulary_not_by_built_in_names() -> None:
    """The mapper knows no agent's names: a vocabulary that lacks Gemini's shell cannot run a command."""
    gemini_shell = [tool("run_shell_command", {"command": s()})]
    assert ToolMapper(gemini_shell, CWD, GEMINI_CLI_TOOLS).run("ls") == ("run_shell_command", {"command": "ls"})
    with pytest.raises(UnmappableStepError, match="no shell tool"):
        ToolMapper(gemini_shell, CWD).run("ls")
    with pytest.raises(UnmappableStepError):
        ToolMapper([ToolSpec("local_shell")], CWD, CLAUDE_CODE_TOOLS).run("ls")


def test_a_plugin_vocabulary_maps_its_own_names_and_argument_keys() -> None:
    vocabulary = ToolVocabulary(
        tools={"exec": "shell", "put": "write", "fetch_doc": "fetch"},
        arguments={"command": ("line",), "path": ("where",), "content": ("body",)},
    )
    tools = [tool("fetch_doc", {"where": s()}), tool("put", {"where": s(), "body": s()}), tool("exec", {"line": s()})]
    mapper = ToolMapper(tools, CWD, vocabulary)
    assert mapper.write(WriteFile(path="a.txt", content="x")) == ("put", {"where": "a.txt", "body": "x"})
    assert mapper.run("ls") == ("exec", {"line": "ls"})
    assert mapper.read("a.txt") == ("exec", {"line": "cat -- a.txt"})  # fetch_doc is no read tool
    assert vocabulary.kind_of("Fetch-Doc") == "fetch"


def test_a_role_the_vocabulary_leaves_empty_uses_the_generic_keys() -> None:
    vocabulary = ToolVocabulary(tools={"edit_file": "edit"}, arguments={"path": ("TargetFile",)})
    tools = [tool("edit_file", {"TargetFile": s(), "old_string": s(), "new_string": s()})]
    assert ToolMapper(tools, None, vocabulary).edit(EditFile(path="a.py", old="1", new="2")) == (
        "edit_file",
        {"TargetFile": "a.py", "old_string": "1", "new_string": "2"},
    )


def test_antigravity_pascal_case_arguments() -> None:
    tools = [
        tool("run_command", {"CommandLine": s(), "Cwd": s()}, ["CommandLine"]),
        tool("create_file", {"TargetFile": s("Absolute path of the file"), "CodeContent": s()}),
        tool("view_file", {"AbsolutePath": s()}),
    ]
    mapper = ToolMapper(tools, CWD, ANTIGRAVITY_TOOLS)
    assert mapper.write(WriteFile(path="a.txt", content="x")) == (
        "create_file",
        {"TargetFile": f"{CWD}/a.txt", "CodeContent": "x"},
    )
    assert mapper.read("a.txt") == ("view_file", {"AbsolutePath": f"{CWD}/a.txt"})
    # The vocabulary's defaults fill the harness's own required arguments: the command's directory.
    assert mapper.run("ls") == ("run_command", {"CommandLine": "ls", "Cwd": CWD})


def test_antigravity_harness_tools_get_their_declared_defaults() -> None:
    """The local harness's real tool set: write_to_file must overwrite, edits span the whole file."""
    tools = [
        tool("run_command", {"CommandLine": s(), "Cwd": s(), "WaitMsBeforeAsync": {"type": "integer"}}),
        tool("write_to_file", {"TargetFile": s("Must be an absolute path."), "CodeContent": s(), "Overwrite": {}}),
        tool(
            "replace_file_content",
            {
                "TargetFile": s("Must be an absolute path."),
                "TargetContent": s(),
                "ReplacementContent": s(),
                "StartLine": {"type": "integer"},
                "EndLine": {"type": "integer"},
            },
        ),
    ]
    mapper = ToolMapper(tools, CWD, ANTIGRAVITY_TOOLS)
    assert mapper.run("ls") == ("run_command", {"CommandLine": "ls", "Cwd": CWD, "WaitMsBeforeAsync": 10000})
    name, args = mapper.write(WriteFile(path="a.txt", content="x"))
    assert (name, args["TargetFile"], args["CodeContent"], args["Overwrite"]) == (
        "write_to_file",
        f"{CWD}/a.txt",
        "x",
        True,
    )
    name, args = mapper.edit(EditFile(path="a.txt", old="x", new="y"))
    assert name == "replace_file_content" and (args["TargetContent"], args["ReplacementContent"]) == ("x", "y")
    assert (args["StartLine"], args["EndLine"]) == (1, 100000)


def test_within_one_kind_the_first_listed_tool_is_preferred() -> None:
    offered = [tool("exec_command", {"cmd": s()}), tool("shell", {"command": {"type": "array"}})]
    assert ToolMapper(offered, CWD, CODEX_TOOLS).run("ls") == ("shell", bash("ls"))
    assert ToolMapper(offered[:1], CWD, CODEX_TOOLS).run("ls") == ("exec_command", {"cmd": "ls"})


def test_every_builtin_vocabulary_names_the_kinds_the_mapper_needs() -> None:
    for vocabulary in (CLAUDE_CODE_TOOLS, CODEX_TOOLS, GEMINI_CLI_TOOLS, OPENCODE_TOOLS, PI_TOOLS, ANTIGRAVITY_TOOLS):
        assert vocabulary.names("shell"), vocabulary
    assert CLAUDE_CODE_TOOLS.kind_of("Glob") == "search" and CLAUDE_CODE_TOOLS.kind_of("NotebookEdit") == "edit"
    assert ANTIGRAVITY_TOOLS.kind_of("run_command") == "shell" and CODEX_TOOLS.kind_of("apply_patch") == "patch"
