"""The scripted model: playing a script, script files, dataset rows and the oracle."""

from __future__ import annotations

import asyncio
import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from agent_tool_sets import (
    CWD,
    EDIT_PART,
    READ,
    RUN,
    WRITE,
    first_request,
    one_step,
    play,
    scripted,
)

from coder_eval.errors import TaskConfigError
from coder_eval.gateway.script import ScriptedModel
from coder_eval.gateway.script_file import load_script, oracle_script, parse_script, script_for
from coder_eval.gateway.script_model import (
    Script,
)
from coder_eval.gateway.source import ReplySource
from coder_eval.gateway.types import GatewayError, Message, ModelReply, ModelRequest, ToolResult
from coder_eval.loading.loader import LoadedTask, expand_dataset, load_task_file

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


def test_a_replicate_plays_its_own_steps(tmp_path: Path) -> None:
    """`replicates:` swaps the steps for the listed replicate indices; other replicates play `steps`."""
    path = tmp_path / "t.script.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            steps:
              - write_file: {path: out.txt, content: good}
            replicates:
              1:
                - write_file: {path: out.txt, content: bad}
              3: []
            """
        ),
        encoding="utf-8",
    )
    script = load_script(path)
    assert script.for_replicate(0) is script and script.for_replicate(2) is script
    assert script.for_replicate(1).steps[0].write_file.content == "bad"  # type: ignore[union-attr]
    assert script.for_replicate(3).steps == []
    with pytest.raises(TaskConfigError, match="replicates"):
        parse_script({"replicates": {-1: []}}, "t.script.yaml")
