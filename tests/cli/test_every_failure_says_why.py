"""Every non-success says why, where you look first: the unit's line, the end of the run, Ctrl-C, gate.

The agentless cases run in-process (`-T none`-style tasks); the refusal and the interrupt run
the installed CLI as a subprocess, the refusal with the real Claude Code CLI on the scripted model.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from coder_eval.agents.claude_code.options import bundled_cli
from coder_eval.cli.app import app

BIN = Path(sys.executable).with_name("coder-eval")
_runner = CliRunner()


def _invoke(args: list[str], cwd: Path) -> Any:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return _runner.invoke(app, args, catch_exceptions=False, env={"NO_COLOR": "1", "COLUMNS": "200"})
    finally:
        os.chdir(old)


def _write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _none_task(**extra: Any) -> dict[str, Any]:
    return {
        "task_id": "nothing-made",
        "description": "d",
        "agent": {"type": "none"},
        "success_criteria": [{"type": "file_exists", "path": "app.py", "description": "app.py exists"}],
        **extra,
    }


def test_a_failed_unit_names_its_first_failed_gate_and_its_record(tmp_path: Path) -> None:
    task = _write(tmp_path / "task.yaml", _none_task())
    result = _invoke(["run", str(task), "--run-dir", "r", "--preservation-mode", "NONE"], tmp_path)
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    head = next(i for i, line in enumerate(lines) if "nothing-made FAILURE" in line)
    why = lines[head + 1]
    assert why.startswith("    why: file_exists 'app.py exists':"), result.output
    assert "record r/default/nothing-made/00/task.json" in why
    assert (tmp_path / "r" / "default" / "nothing-made" / "00" / "task.json").is_file()
    assert "exit 1: 1 unit(s) did not succeed" in result.output


def test_a_failed_suite_gate_is_named_under_a_full_pass_rate(tmp_path: Path) -> None:
    (tmp_path / "tpl").mkdir()
    (tmp_path / "tpl" / "app.py").write_text("print(1)\n", encoding="utf-8")
    criterion = {"type": "file_exists", "path": "app.py", "description": "app.py exists"}
    doc = _none_task(
        dataset={"rows": [{"id": "a"}, {"id": "b"}]},
        sandbox={"template_sources": [{"type": "template_dir", "path": "tpl"}]},
        success_criteria=[{**criterion, "suite_thresholds": {"no_such_metric": 0.5}}],
    )
    task = _write(tmp_path / "task.yaml", doc)
    result = _invoke(["run", str(task), "--run-dir", "r", "--preservation-mode", "NONE"], tmp_path)
    assert result.exit_code == 1, result.output
    assert "2 succeeded, 0 failed" in result.output and "pass rate 100.0%" in result.output
    assert "failed gate: default/nothing-made: " in result.output and "no_such_metric" in result.output
    assert "exit 1: 1 gate(s) failed" in result.output


def test_gate_fails_on_failed_tasks_unless_allowed(tmp_path: Path) -> None:
    task = _write(tmp_path / "task.yaml", _none_task())
    assert _invoke(["run", str(task), "--run-dir", "r", "--preservation-mode", "NONE"], tmp_path).exit_code == 1
    gate = _invoke(["gate", "r"], tmp_path)
    assert gate.exit_code == 1 and "1 task(s) did not succeed" in gate.output and "nothing-made: FAILURE" in gate.output
    assert _invoke(["gate", "r", "--allow-failures"], tmp_path).exit_code == 0
    assert _invoke(["gate", "r", "--minimum-task-score", "0.0"], tmp_path).exit_code == 0  # a floor decides


def test_init_never_overwrites(tmp_path: Path) -> None:
    assert _invoke(["init", "proj"], tmp_path).exit_code == 0
    again = _invoke(["init", "proj"], tmp_path)
    assert again.exit_code == 2 and "init never overwrites" in again.output
    assert (tmp_path / "proj" / ".gitignore").read_text(encoding="utf-8").startswith("runs/")


def test_an_install_hint_with_brackets_survives_the_agents_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from coder_eval.agents import availability

    row = availability.KindStatus("codex", "missing binary", "codex", None, None, "pip install 'coder-eval[codex]'")
    monkeypatch.setattr(availability, "survey", lambda: [row])
    result = _runner.invoke(app, ["agents"], env={"COLUMNS": "200"})
    assert "[codex]" in result.output, result.output


def test_run_and_task_pages_link_each_other(tmp_path: Path) -> None:
    task = _write(tmp_path / "task.yaml", _none_task())
    _invoke(["run", str(task), "--run-dir", "r", "--preservation-mode", "NONE", "--repeats", "2"], tmp_path)
    assert _invoke(["report", "r", "--format", "html"], tmp_path).exit_code == 0
    run_dir = tmp_path / "r"
    page = (run_dir / "run.html").read_text(encoding="utf-8")
    assert 'href="default/nothing-made/00/task.html"' in page and 'href="experiment.html"' in page
    task_page = (run_dir / "default" / "nothing-made" / "00" / "task.html").read_text(encoding="utf-8")
    assert 'href="../../../run.html"' in task_page and 'href="../../../experiment.html"' in task_page
    experiment = (run_dir / "experiment.html").read_text(encoding="utf-8")
    assert 'href="default/variant.html"' in experiment and (run_dir / "default" / "variant.html").is_file()


@pytest.mark.slow
def test_ctrl_c_says_what_finished_where_and_how_to_resume(tmp_path: Path) -> None:
    quick = _write(tmp_path / "a.yaml", _none_task(task_id="a-quick"))
    slow = _write(tmp_path / "b.yaml", _none_task(task_id="b-slow", pre_run=[{"command": "sleep 60", "timeout": 120}]))
    argv = [str(BIN), "run", str(quick), str(slow), "--run-dir", str(tmp_path / "r"), "--preservation-mode", "NONE"]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    record = tmp_path / "r" / "default" / "a-quick" / "00" / "task.json"
    while not record.is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, out + err
    text = " ".join(err.split())
    assert "interrupted: 1 of 2 unit(s) finished (0 succeeded, 1 failed, 0 errors)" in text, out + err
    assert f"records in {tmp_path / 'r'}" in text
    assert f"--run-dir {tmp_path / 'r'} --resume" in text and "resume with: coder-eval run" in text
    assert json.loads((tmp_path / "r" / "run.json").read_text(encoding="utf-8"))["interrupted"] is True


@pytest.mark.slow
@pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here")
def test_a_refused_bash_call_is_recorded_shown_and_never_counted(tmp_path: Path) -> None:
    """The issue's case with the real Claude Code CLI: acceptEdits and no allowed_tools."""
    doc = {
        "task_id": "refusal",
        "description": "d",
        "initial_prompt": "Run the team's CLI.",
        "agent": {"type": "claude-code", "setting_sources": []},
        "success_criteria": [{"type": "command_executed", "command_pattern": "python3", "description": "ran it"}],
    }
    task = _write(tmp_path / "task.yaml", doc)
    (tmp_path / "task.script.yaml").write_text("steps:\n  - run_command: python3 -c 'print(1)'\nfinal_reply: done\n")
    argv = [str(BIN), "run", str(task), "-b", "script", "--run-dir", str(tmp_path / "r")]
    proc = subprocess.run(
        argv, cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"}
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    record = json.loads((tmp_path / "r" / "default" / "refusal" / "00" / "task.json").read_text(encoding="utf-8"))
    (command,) = [c for it in record["iterations"] for c in it["commands"]]
    assert command["status"] == "refused" and record["command_stats"]["refused_commands"] == 1
    assert record["success_criteria_results"][0]["score"] == 0.0
    assert record["model_used"] == "script"
    assert "1 tool call(s) refused by the agent's permissions (Bash 1)" in proc.stdout
