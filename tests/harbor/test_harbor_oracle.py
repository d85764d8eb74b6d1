"""The oracle of a task whose reference says how it is applied (`reference.solve`, a Harbor solve.sh).

lint runs each task twice, with no agent (it must not pass) and with its oracle (it must): here
the oracle is the solve command, run in the sandbox with the reference shown, never copied in.
The docker test imports a Harbor task and lints it as Harbor would trial it: solution at
/solution, `[solution] env`, the verifier's reward.json under /logs/verifier, the image's WORKDIR.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml


def cli(*args: str | Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("API_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "coder_eval", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def lint(cwd: Path, *paths: str) -> tuple[int, list[dict[str, Any]]]:
    """lint's exit code and its findings other than notes."""
    proc = cli("lint", *paths, "-f", "json", cwd=cwd)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.returncode, [f for f in json.loads(proc.stdout)["findings"] if f["severity"] != "note"]


def solve_task(root: Path, solve_sh: str) -> Path:
    folder = root / "solve-task"
    (folder / "solution").mkdir(parents=True)
    (folder / "solution" / "solve.sh").write_text(solve_sh, encoding="utf-8")
    (folder / "solution" / "answer.template").write_text("answer: {}\n", encoding="utf-8")
    doc = {
        "task_id": "solve-task",
        "description": "the oracle runs solve.sh",
        "initial_prompt": "Write answer.txt.",
        "agent": {"type": "claude-code"},
        "sandbox": {"driver": "tempdir"},
        "reference": {
            "directory": "solution",
            "solve": {"command": 'bash "$REFERENCE_DIR/solve.sh"', "env": {"ANSWER": "forty-two"}},
        },
        "success_criteria": [
            {"type": "run_command", "command": "grep -qx 'answer: forty-two' answer.txt", "description": "answered"},
            {"type": "run_command", "command": "test ! -e solve.sh", "description": "solution not copied in"},
        ],
    }
    path = folder / "task.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def test_the_oracle_runs_the_solve_command_with_its_env(tmp_path: Path) -> None:
    solve_task(tmp_path, 'sed "s/{}/$ANSWER/" "$REFERENCE_DIR/answer.template" > answer.txt\n')
    code, findings = lint(tmp_path, "solve-task")
    assert (code, findings) == (0, [])


def test_a_failing_solve_command_is_reported_with_its_reason(tmp_path: Path) -> None:
    solve_task(tmp_path, "echo 'solve: missing tool' >&2; exit 3\n")
    code, findings = lint(tmp_path, "solve-task")
    (hit,) = [f for f in findings if f["rule_id"] in ("CE202", "CE203")]
    assert code == 1 and hit["rule_id"] == "CE203" and "exit code 3" in hit["message"], findings


def test_the_scripted_oracle_only_replies_when_the_harness_applies_the_reference(tmp_path: Path) -> None:
    from coder_eval.gateway.script_file import oracle_script
    from coder_eval.loading.loader import load_tasks

    task = solve_task(tmp_path, "true\n")
    (loaded,) = load_tasks([str(task)]).tasks
    script = oracle_script(loaded)
    assert script.steps == [] and "solve command" in script.final_reply


def test_run_oracle_applies_the_solve_command_and_a_plain_run_does_not(tmp_path: Path) -> None:
    task = solve_task(tmp_path, 'sed "s/{}/$ANSWER/" "$REFERENCE_DIR/answer.template" > answer.txt\n')
    doc = yaml.safe_load(task.read_text(encoding="utf-8"))
    doc["agent"] = {"type": "none"}
    task.write_text(yaml.safe_dump(doc), encoding="utf-8")
    oracle = cli("run", "solve-task", "-b", "script", "--oracle", "--run-dir", "oracle", cwd=tmp_path)
    assert oracle.returncode == 0, oracle.stdout + oracle.stderr
    record = json.loads(next((tmp_path / "oracle").rglob("task.json")).read_text(encoding="utf-8"))
    (solved,) = record["pre_run_results"]  # the solve command is kept with the unit's pre_run results
    assert solved["exit_code"] == 0 and "solve.sh" in solved["command"]
    plain = cli("run", "solve-task", "--run-dir", "plain", cwd=tmp_path)
    assert plain.returncode == 1, plain.stdout + plain.stderr


def docker_ready() -> bool:
    docker = shutil.which("docker")
    if docker is None:
        return False
    probe = [docker, "image", "inspect", "coder-eval-base:latest"]
    return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0


HARBOR_TOML = """version = "1.0"
[metadata]
difficulty = "easy"
[verifier]
timeout_sec = 120.0
[agent]
timeout_sec = 300.0
[environment]
allow_internet = false
memory = "1G"
[environment.env]
GREETING_FILE = "greeting.txt"
[solution.env]
GREETING = "hello from the oracle"
"""
TEST_SH = """#!/bin/bash
mkdir -p /logs/verifier
echo "workdir $PWD"
if [ "$(cat "/app/$GREETING_FILE" 2>/dev/null)" = "hello from the oracle" ]; then
  echo '{"score": 1.0}' > /logs/verifier/reward.json
else
  echo "no greeting in /app/$GREETING_FILE"
  echo '{"score": 0.0}' > /logs/verifier/reward.json
fi
"""
SOLVE_SH = """#!/bin/bash
cp /solution/files/greeting.txt "$GREETING_FILE" && test "$(cat "$GREETING_FILE")" = "$GREETING"
"""


@pytest.mark.slow
@pytest.mark.skipif(not docker_ready(), reason="needs docker and the coder-eval-base image")
def test_an_imported_harbor_task_fails_with_no_agent_and_passes_its_oracle_under_docker(tmp_path: Path) -> None:
    src = tmp_path / "pack" / "greet"
    for part in ("environment", "tests", "solution/files"):
        (src / part).mkdir(parents=True)
    (src / "task.toml").write_text(HARBOR_TOML, encoding="utf-8")
    (src / "instruction.md").write_text("Write the greeting to greeting.txt.\n", encoding="utf-8")
    (src / "environment" / "Dockerfile").write_text("FROM coder-eval-base:latest\nWORKDIR /app\n", encoding="utf-8")
    (src / "tests" / "test.sh").write_text(TEST_SH, encoding="utf-8")
    (src / "solution" / "solve.sh").write_text(SOLVE_SH, encoding="utf-8")
    (src / "solution" / "files" / "greeting.txt").write_text("hello from the oracle\n", encoding="utf-8")
    proc = cli("import", "harbor", "pack", "-o", "tasks", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    imported = yaml.safe_load((tmp_path / "tasks" / "greet" / "task.yaml").read_text(encoding="utf-8"))
    assert imported["reference"]["solve"]["env"] == {"GREETING": "hello from the oracle"}
    # solution/files here is the task's own, beside its solve.sh: the oracle runs solve.sh
    assert imported["reference"]["directory"] == "solution"
    code, findings = lint(tmp_path, "tasks")
    assert (code, findings) == (0, []), findings
