"""The scripted model: script files, the oracle, and steps mapped onto each agent's tools."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from coder_eval.agents.vocabularies import (
    ANTHROPIC_API_TOOLS,
    ANTIGRAVITY_TOOLS,
    CLAUDE_CODE_TOOLS,
    CODEX_TOOLS,
    GEMINI_CLI_TOOLS,
    OPENCODE_TOOLS,
    PI_TOOLS,
)
from coder_eval.errors import TaskConfigError
from coder_eval.gateway.script import ScriptedModel
from coder_eval.gateway.script_file import load_script, oracle_script, parse_script, script_for
from coder_eval.gateway.script_model import (
    EditFile,
    InvokeSkill,
    ReadFile,
    RunCommand,
    Script,
    ToolAction,
    WriteFile,
)
from coder_eval.gateway.script_text import shell_write
from coder_eval.gateway.source import ReplySource
from coder_eval.gateway.tool_mapping import ToolMapper, UnmappableStepError
from coder_eval.gateway.types import GatewayError, Message, ModelReply, ModelRequest, ToolResult, ToolSpec
from coder_eval.loading.loader import LoadedTask, expand_dataset, load_task_file
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
    assert mapper.run("ls") == ("run_command", {"CommandLine": "ls"})


def test_within_one_kind_the_first_listed_tool_is_preferred() -> None:
    offered = [tool("exec_command", {"cmd": s()}), tool("shell", {"command": {"type": "array"}})]
    assert ToolMapper(offered, CWD, CODEX_TOOLS).run("ls") == ("shell", bash("ls"))
    assert ToolMapper(offered[:1], CWD, CODEX_TOOLS).run("ls") == ("exec_command", {"cmd": "ls"})


def test_every_builtin_vocabulary_names_the_kinds_the_mapper_needs() -> None:
    for vocabulary in (CLAUDE_CODE_TOOLS, CODEX_TOOLS, GEMINI_CLI_TOOLS, OPENCODE_TOOLS, PI_TOOLS, ANTIGRAVITY_TOOLS):
        assert vocabulary.names("shell"), vocabulary
    assert CLAUDE_CODE_TOOLS.kind_of("Glob") == "search" and CLAUDE_CODE_TOOLS.kind_of("NotebookEdit") == "edit"
    assert ANTIGRAVITY_TOOLS.kind_of("run_command") == "shell" and CODEX_TOOLS.kind_of("apply_patch") == "patch"


# --- playing a script ---------------------------------------------------------------------------


class Conversation:
    """Drives a ScriptedModel like an agent: tool results go back after every tool-use reply."""

    def __init__(self, model: ScriptedModel, agent: str = "claude") -> None:
        self.model = model
        self.request = first_request(agent)

    def call(self) -> ModelReply:
        reply = asyncio.run(self.model.reply(self.request))
        if reply.tool_calls:
            results = [ToolResult(c.id, "ok") for c in reply.tool_calls]
            self.request.messages += [
                Message("assistant", tool_calls=reply.tool_calls),
                Message("user", tool_results=results),
            ]
        else:
            self.request.messages += [Message("assistant", reply.text), Message("user", "next turn")]
        return reply

    def side_call(self) -> ModelReply:
        side = ModelRequest(protocol="t", model="m", messages=[Message("user", "Write a title")])
        return asyncio.run(self.model.reply(side))


def script(*steps: dict[str, Any], **top: Any) -> Script:
    return parse_script({"steps": list(steps), **top}, "test.script.yaml")


def test_side_calls_do_not_advance_the_script() -> None:
    talk = Conversation(scripted(script(WRITE, RUN)))
    assert talk.call().tool_calls[0].name == "Write"
    side = talk.side_call()
    assert (side.text, side.stop_reason, side.tool_calls) == ("Scripted session", "end_turn", [])
    assert talk.call().tool_calls[0].name == "Bash"
    assert [h.kind for h in talk.model.history] == ["write_file", "side_call", "run_command"]


def test_write_refused_as_unread_is_read_then_retried_once() -> None:
    model = scripted(script(EDIT_PART, RUN))
    request = first_request("claude")

    def answer(results: list[ToolResult], calls: list[Any]) -> ModelReply:
        request.messages += [Message("assistant", tool_calls=calls), Message("user", tool_results=results)]
        return asyncio.run(model.reply(request))

    edit = asyncio.run(model.reply(request)).tool_calls
    refusal = "File has not been read yet. Read it first before writing to it."
    read = answer([ToolResult("call_0_0", refusal, is_error=True)], edit).tool_calls
    assert [(c.id, c.name, c.arguments) for c in read] == [("call_0_0_read", "Read", {"file_path": f"{CWD}/a.py"})]
    retry = answer([ToolResult("call_0_0_read", "1\tx = 1")], read).tool_calls
    assert [(c.id, c.name, c.arguments) for c in retry] == [("call_0_0_retry", "Edit", edit[0].arguments)]
    after = answer([ToolResult("call_0_0_retry", refusal, is_error=True)], retry).tool_calls
    assert after[0].name == "Bash"
    assert [h.kind for h in model.history] == ["edit_file", "read_before_write", "retry", "run_command"]


def test_other_tool_errors_do_not_trigger_a_read() -> None:
    talk = Conversation(scripted(script(WRITE, RUN)))
    talk.call()
    talk.request.messages[-1].tool_results[0] = ToolResult("call_0_0", "Permission denied", is_error=True)
    assert talk.call().tool_calls[0].name == "Bash"


def test_a_resent_request_gets_the_same_reply_without_advancing() -> None:
    model = scripted(script(WRITE, RUN))
    request = first_request("claude")
    first = asyncio.run(model.reply(request))
    again = asyncio.run(model.reply(request))
    assert again.tool_calls == first.tool_calls
    assert model.position == 1
    assert [h.kind for h in model.history] == ["write_file", "resend"]


def test_error_is_injected_n_times_then_the_script_continues() -> None:
    talk = Conversation(scripted(script({"error": {"status": 529, "times": 2}}, WRITE)))
    for n in (1, 2):
        with pytest.raises(GatewayError) as info:
            talk.call()
        assert (info.value.status, info.value.kind) == (529, "overloaded_error")
        assert f"({n} of 2)" in info.value.message
    assert talk.call().tool_calls[0].name == "Write"
    assert [(h.kind, h.status) for h in talk.model.history] == [("error", 529), ("error", 529), ("write_file", None)]


def test_error_shorthand_and_custom_message() -> None:
    model = scripted(script({"error": 429}, {"error": {"status": 500, "message": "boom"}}))
    with pytest.raises(GatewayError) as first:
        asyncio.run(model.reply(first_request("claude")))
    assert (first.value.status, first.value.kind) == (429, "rate_limit_error")
    with pytest.raises(GatewayError) as second:
        asyncio.run(model.reply(first_request("claude")))
    assert (second.value.status, second.value.message) == (500, "boom")


def test_delay_sleeps_before_the_next_answer() -> None:
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    _, reply = play(script({"delay": 1.5}, {"delay": {"seconds": 0}}, WRITE), sleep=fake_sleep)
    assert slept == [1.5, 0]
    assert reply.tool_calls[0].name == "Write"


def test_reply_step_ends_the_turn_and_final_reply_repeats() -> None:
    talk = Conversation(scripted(script(WRITE, {"reply": "Turn one done."}, RUN, final_reply="All done.")))
    talk.call()
    reply = talk.call()
    assert (reply.text, reply.stop_reason, reply.tool_calls) == ("Turn one done.", "end_turn", [])
    assert talk.call().tool_calls[0].id == "call_2_0"
    for _ in range(2):
        final = talk.call()
        assert (final.text, final.stop_reason) == ("All done.", "end_turn")
    assert talk.model.finished
    assert [h.kind for h in talk.model.history][-2:] == ["final_reply", "final_reply"]


def test_empty_script_answers_the_default_final_reply() -> None:
    model, reply = play(Script())
    assert isinstance(model, ReplySource)
    assert (reply.text, reply.stop_reason, reply.model) == ("Done.", "end_turn", "scripted")


def test_parallel_step_answers_several_tool_calls() -> None:
    talk = Conversation(scripted(script(READ, {"parallel": [WRITE, RUN]}), "pi"), "pi")
    talk.call()
    reply = talk.call()
    assert [(c.id, c.name) for c in reply.tool_calls] == [("call_1_0", "write"), ("call_1_1", "bash")]
    assert talk.model.history[-1].kind == "parallel"


def test_usage_is_estimated_deterministically_or_fixed_by_the_script() -> None:
    _, first = play(one_step(WRITE))
    _, second = play(one_step(WRITE))
    assert first.usage == second.usage
    assert first.usage.input_tokens > 100 and first.usage.output_tokens > 0
    _, fixed = play(script(WRITE, tokens={"input": 1000, "output": 50}, model="claude-sonnet-4-5"))
    assert (fixed.usage.input_tokens, fixed.usage.output_tokens, fixed.model) == (1000, 50, "claude-sonnet-4-5")


# --- script files, dataset rows and the oracle --------------------------------------------------

TASK_YAML = """\
task_id: demo
description: A demo task
initial_prompt: Write a.txt
reference:
  directory: reference
success_criteria:
  - type: file_exists
    path: a.txt
    description: a.txt exists
"""

DATASET_YAML = """\
task_id: suite
description: A dataset task
initial_prompt: "Greet ${row.name}"
dataset:
  rows:
    - {id: r1, name: Ada}
    - {id: r2, name: Bob}
success_criteria:
  - type: file_exists
    path: hello.txt
    description: hello.txt exists
"""


def loaded(tmp_path: Path, text: str = TASK_YAML, name: str = "task.yaml") -> list[LoadedTask]:
    path = tmp_path / name
    path.write_text(text)
    definition, raw = load_task_file(path)
    return expand_dataset(definition, raw, path)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_script_beside_the_task_file_is_found(tmp_path: Path) -> None:
    write(tmp_path / "task.script.yaml", "steps:\n  - run_command: ls\nfinal_reply: Bye\n")
    found = script_for(loaded(tmp_path)[0], oracle=False)
    assert found.final_reply == "Bye"
    assert len(found.steps) == 1


def test_scripts_directory_by_task_id(tmp_path: Path) -> None:
    write(tmp_path / "scripts/demo.yaml", "steps: []\nfinal_reply: From scripts/\n")
    assert script_for(loaded(tmp_path)[0], oracle=False).final_reply == "From scripts/"


def test_dataset_rows_substitute_and_prefer_a_per_row_script(tmp_path: Path) -> None:
    write(tmp_path / "task.script.yaml", "steps:\n  - write_file: {path: hello.txt, content: 'Hi ${row.name}'}\n")
    write(tmp_path / "scripts/suite/r2.yaml", "steps: []\nfinal_reply: Row two\n")
    first, second = loaded(tmp_path, DATASET_YAML)
    shared = script_for(first, oracle=False)
    assert (
        shared.steps[0]
        == parse_script({"steps": [{"write_file": {"path": "hello.txt", "content": "Hi Ada"}}]}, "x").steps[0]
    )
    assert script_for(second, oracle=False).final_reply == "Row two"


def test_unknown_row_field_names_the_script_file(tmp_path: Path) -> None:
    path = write(tmp_path / "task.script.yaml", "steps:\n  - reply: 'Hi ${row.nope}'\n")
    with pytest.raises(TaskConfigError) as info:
        script_for(loaded(tmp_path, DATASET_YAML)[0], oracle=False)
    assert str(path) in str(info.value) and "row.nope" in str(info.value)


def test_missing_script_says_where_to_write_it(tmp_path: Path) -> None:
    with pytest.raises(TaskConfigError) as info:
        script_for(loaded(tmp_path)[0], oracle=False)
    message = str(info.value)
    assert "no script for task demo" in message
    assert str(tmp_path / "task.script.yaml") in message and "oracle" in message


def test_oracle_writes_every_reference_text_file(tmp_path: Path) -> None:
    write(tmp_path / "reference/a.txt", "alpha\n")
    write(tmp_path / "reference/pkg/b.py", "print('b')")
    (tmp_path / "reference/blob.bin").write_bytes(b"\x00\x01binary")
    (tmp_path / "reference/latin.txt").write_bytes(b"caf\xe9")
    write(tmp_path / "reference/.git/config", "[core]\n")
    os.symlink(tmp_path / "reference/a.txt", tmp_path / "reference/link.txt")
    oracle = script_for(loaded(tmp_path)[0], oracle=True)
    assert oracle == oracle_script(loaded(tmp_path)[0])
    writes = [(step.write_file.path, step.write_file.content) for step in oracle.steps]  # type: ignore[union-attr]
    assert writes == [("a.txt", "alpha\n"), ("pkg/b.py", "print('b')")]
    talk = Conversation(scripted(oracle, "pi"), "pi")
    assert [talk.call().tool_calls[0].arguments["path"] for _ in writes] == ["a.txt", "pkg/b.py"]
    assert talk.call().stop_reason == "end_turn"


def test_oracle_needs_a_reference_directory(tmp_path: Path) -> None:
    with pytest.raises(TaskConfigError, match="does not exist"):
        oracle_script(loaded(tmp_path)[0])
    with pytest.raises(TaskConfigError, match="no reference directory"):
        oracle_script(loaded(tmp_path, DATASET_YAML)[0])


def test_shorthands_and_full_forms_are_equal() -> None:
    short = script({"read_file": "a"}, {"run_command": "ls"}, {"invoke_skill": "pdf"}, {"reply": "hi"}, {"delay": 2})
    full = script(
        {"read_file": {"path": "a"}},
        {"run_command": {"command": "ls"}},
        {"invoke_skill": {"name": "pdf"}},
        {"reply": {"text": "hi"}},
        {"delay": {"seconds": 2}},
    )
    assert short == full
    assert [s.kind for s in short.steps] == ["read_file", "run_command", "invoke_skill", "reply", "delay"]


INVALID_CASES: list[tuple[str, str]] = [
    (
        "steps:\n  - wrte_file: {path: a, content: b}\n",
        "steps[0] (line 2): unknown step kind 'wrte_file' (did you mean 'write_file'?)",
    ),
    (
        "steps:\n  - write_file: {path: a, contnet: b}\n",
        "steps[0].write_file.contnet (line 2): unknown key 'contnet' (did you mean 'content'?)",
    ),
    ("steps:\n  - write_file: {path: a}\n", "steps[0].write_file.content (line 2): required field is missing"),
    ("steps:\n  - reply: hi\n    run_command: ls\n", "a step has exactly one key, this one has reply, run_command"),
    ("steps:\n  - reply\n", "steps[0] (line 2): a step must be a one-key mapping, not str"),
    ("steps:\n  - {}\n", "empty step"),
    ("steps:\n  - error: {status: 418}\n", "steps[0].error.status (line 2): Input should be 429, 500, 503 or 529"),
    ("steps:\n  - error: {status: 500, times: 0}\n", "steps[0].error.times"),
    ("steps:\n  - parallel: [{reply: x}]\n", "'reply' cannot run inside parallel"),
    ("steps:\n  - parallel: [{bash: x}]\n", "unknown step kind 'bash'"),
    ("steps:\n  - run_command: '  '\n", "steps[0].run_command.command (line 2): must not be empty"),
    ("stepz: []\n", "unknown key 'stepz' (did you mean 'steps'?)"),
    ("tokens: {input: 1, outptu: 2}\n", "tokens.outptu (line 1): unknown key 'outptu' (did you mean 'output'?)"),
    ("- reply: hi\n", "a script must be a YAML mapping, not list"),
    ("steps: [\n", "not valid YAML"),
]


@pytest.mark.parametrize(("text", "expected"), INVALID_CASES)
def test_invalid_scripts_name_the_file_field_and_fix(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path / "t.script.yaml", text)
    with pytest.raises(TaskConfigError) as info:
        load_script(path)
    assert str(path) in str(info.value)
    assert expected in str(info.value)


def test_script_schema_exports() -> None:
    schema = Script.model_json_schema()
    assert "steps" in schema["properties"]
    assert json.dumps(schema)
