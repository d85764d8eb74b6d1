"""agent_judge end to end on the scripted model: Claude Code works, a second Claude Code judges a copy."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from judge_e2e import claude_task, results, run, task_json

from coder_eval.agents.claude_code.options import bundled_cli
from coder_eval.sandbox.bwrap import bwrap_works

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="no bundled Claude Code CLI"),
]

SECRET = "the reference answer is forty-two bottles of lemonade"
GREET = "def greet(name):\n    return f'Hello, {name}!'\n"


def _judge(description: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "agent_judge",
        "description": description,
        "prompt": "Grade greet.py.",
        "files": ["greet.py"],
        "max_turns": 6,
        "turn_timeout": 120,
        **extra,
    }


def _with_reference(tmp_path: Path) -> None:
    (tmp_path / "reference").mkdir(parents=True)
    (tmp_path / "reference" / "answer.txt").write_text(SECRET + "\n")


def _unit(run_dir: Path, task_id: str) -> Path:
    return run_dir / "default" / task_id / "00"


def test_pass_fail_no_verdict_and_malformed(tmp_path: Path) -> None:
    _with_reference(tmp_path)
    doc = claude_task(
        "judged",
        [
            _judge("passes", pass_threshold=0.8),
            _judge("fails", pass_threshold=0.8),
            _judge("no verdict"),
            _judge("malformed score"),
        ],
        reference={"directory": "reference"},
        sandbox={"driver": "tempdir"},
    )
    script = {
        "steps": [{"write_file": {"path": "greet.py", "content": GREET}}, {"reply": "done"}],
        "judges": [
            {
                "criterion": 0,
                "steps": [{"run_command": "cat _reference/answer.txt"}],
                "verdict": {"score": 0.9, "rationale": f"Matches the reference: {SECRET}"},
            },
            {"criterion": "fails", "verdict": {"score": 0.3, "rationale": "too plain"}},
            {"criterion": 2, "reply": "It looks fine to me, nothing more to say."},
            {"criterion": 3, "verdict": {"score": "high", "rationale": "x"}},
        ],
    }
    run_dir, proc = run(tmp_path, doc, script)
    record = task_json(run_dir, "judged")
    by = results(record)
    assert by["passes"]["score"] == pytest.approx(0.9) and by["passes"]["error"] is None, proc.stderr
    assert by["fails"]["score"] == pytest.approx(0.3) and by["fails"]["error"] is None
    assert "not a JSON verdict" in by["no verdict"]["error"]
    assert "not a number" in by["malformed score"]["error"]
    for name in ("no verdict", "malformed score"):
        assert by[name]["score"] == 0.0 and by[name]["evaluation_status"] == "evaluated"
    assert record["final_status"] == "FAILURE"
    # usage and duration are recorded; the judge route is priced as judge spend
    passed = by["passes"]
    assert passed["token_usage"]["input_tokens"] > 0 and passed["duration_seconds"] > 0
    assert "judge agent: 1 tool call," in passed["details"]
    assert record["judge_cost_usd"] is not None
    assert record["environment_info"]["judge_transport"] == "gateway (script)"
    # the judge read the reference in its copy; nothing persisted holds it
    unit = _unit(run_dir, "judged")
    assert SECRET not in (unit / "task.json").read_text()
    transcript = yaml.safe_load((unit / "judge-0.yaml").read_text())
    assert SECRET not in yaml.safe_dump(transcript)
    assert "removed" in transcript["tool_calls"][0] and transcript["route"] == "gateway"
    assert passed["transcript_path"] == "judge-0.yaml"


def _copy_probe(tmp_path: Path, driver: str, *, escape: bool = False) -> tuple[dict[str, Any], dict[str, Any], Path]:
    _with_reference(tmp_path)
    doc = claude_task(
        "copy",
        [_judge("probe", include_reference=True)],
        reference={"directory": "reference"},
        sandbox={"driver": driver},
    )
    doc["agent"]["permission_mode"] = "bypassPermissions"  # Claude Code asks before touching .claude otherwise
    plant = "mkdir -p .claude && echo '{}' > .claude/settings.json && echo '{}' > .mcp.json && pwd > where.txt"
    probe = (
        "ls -a; test -e .claude && echo CLAUDE_PRESENT || echo CLAUDE_ABSENT; "
        "test -e .mcp.json && echo MCP_PRESENT || echo MCP_ABSENT; cat greet.py"
    )
    script = {
        "steps": [
            {"write_file": {"path": "greet.py", "content": GREET}},
            {"run_command": plant},
            {"reply": "done"},
        ],
        "judges": [
            {
                "criterion": 0,
                "steps": [
                    {"run_command": probe},
                    {"run_command": "echo hacked > greet.py && cat greet.py"},
                    # by absolute path: only an isolating driver keeps the original out of reach
                    *(
                        [{"run_command": 'echo hacked > "$(cat where.txt)/greet.py" && echo WROTE || echo NO_WAY'}]
                        if escape
                        else []
                    ),
                ],
                "verdict": {"score": 1.0, "rationale": "checked"},
            }
        ],
    }
    run_dir, proc = run(tmp_path, doc, script)
    record = task_json(run_dir, "copy")
    transcript = yaml.safe_load((_unit(run_dir, "copy") / "judge-0.yaml").read_text())
    assert results(record)["probe"]["score"] == 1.0, f"{results(record)['probe']}\n{proc.stderr[-2000:]}"
    return record, transcript, _unit(run_dir, "copy") / "artifacts"


def test_judge_runs_commands_in_a_copy_without_the_agents_settings(tmp_path: Path) -> None:
    _, transcript, artifacts = _copy_probe(tmp_path, "tempdir")
    probe, write = transcript["tool_calls"][0], transcript["tool_calls"][1]
    assert "CLAUDE_ABSENT" in probe and "MCP_ABSENT" in probe and "_reference" in probe
    assert "def greet" in probe
    assert "hacked" in write  # the write worked, in the copy
    # the agent's workspace is untouched by the write in the copy
    assert (artifacts / "greet.py").read_text() == GREET
    assert (artifacts / ".claude" / "settings.json").is_file()
    assert not (artifacts / "_reference").exists()


@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot create namespaces here")
def test_bubblewrap_judge_cannot_reach_the_original(tmp_path: Path) -> None:
    _, transcript, artifacts = _copy_probe(tmp_path, "bubblewrap", escape=True)
    assert "CLAUDE_ABSENT" in transcript["tool_calls"][0]
    # the original workspace is not even mounted in the judge's namespaces
    outcome = transcript["tool_calls"][2].split(" -> ", 1)[1]
    assert "No such file" in outcome and outcome.endswith("NO_WAY")
    assert (artifacts / "greet.py").read_text() == GREET


def test_timeout_and_missing_entry_score_zero(tmp_path: Path) -> None:
    doc = claude_task(
        "slow",
        [_judge("slow", turn_timeout=3), _judge("unscripted")],
        sandbox={"driver": "tempdir"},
    )
    script = {
        "steps": [{"write_file": {"path": "greet.py", "content": GREET}}],
        "judges": [{"criterion": 0, "delay": 10, "verdict": {"score": 1.0, "rationale": "late"}}],
    }
    run_dir, proc = run(tmp_path, doc, script)
    by = results(task_json(run_dir, "slow"))
    assert by["slow"]["score"] == 0.0 and "timed out" in by["slow"]["error"], proc.stderr[-2000:]
    assert by["unscripted"]["score"] == 0.0 and "judges: entry for criterion 1" in by["unscripted"]["error"]
    assert not list((run_dir / ".sandboxes").glob("sbx-*")), "the judge's copy outlived the criterion"
    assert _processes_under(tmp_path) == [], "a judge process outlived the run"


def _processes_under(root: Path) -> list[int]:
    """Live processes whose working directory or command line lies under `root`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(root)) or str(root) in cmdline:
            found.append(int(entry.name))
    return found
