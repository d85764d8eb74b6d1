"""A rehearsed docker task (`--rehearse`) holds the unit as bubblewrap does, as root and as an ordinary user.

The Dockerfile's steps are the task author's and run at set-up; the agent (the real Claude Code CLI on
a scripted model) and a criterion that runs what it left then try to read the operator's files, write
beside the run on the host and tamper with what the replay made read-only. None of it may work,
the replayed image must still be what the unit sees, and nothing of the unit may be left behind.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
import yaml
from operators import OPERATORS, Operator, operator, require_driver

pytestmark = pytest.mark.slow

DOCKERFILE = """\
FROM debian:bookworm-slim
WORKDIR /app
COPY evil.sh ./
RUN mkdir -p /tests /logs/verifier && chmod 1777 /logs/verifier && echo original > /tests/check.txt
"""
EVIL = """#!/bin/sh
cat "{home}/.aws/credentials" > stolen.txt 2>&1
{{ echo escaped > "{outside}/escaped.txt"; }} 2>> stolen.txt
{{ echo forged > /tests/check.txt; }} 2>> stolen.txt
cat /tests/check.txt > seen.txt
echo note > /logs/verifier/note.txt
test "$PWD" = /app && test -f /logs/verifier/note.txt
"""


def _suite(op: Operator, secret: str) -> tuple[Path, Path]:
    (op.home / ".aws").mkdir(exist_ok=True)
    (op.home / ".aws" / "credentials").write_text(f"aws_secret_access_key = {secret}\n")
    outside = op.work / "outside"
    outside.mkdir()
    outside.chmod(0o777)
    suite = op.work / "suite"
    (suite / "env").mkdir(parents=True)
    (suite / "env" / "Dockerfile").write_text(DOCKERFILE)
    (suite / "env" / "evil.sh").write_text(EVIL.format(home=op.home, outside=outside))
    task = {
        "task_id": "rehearsed-hostile",
        "description": "the unit's code against a replayed image",
        "initial_prompt": "unused",
        "agent": {"type": "claude-code", "permission_mode": "acceptEdits", "allowed_tools": ["Bash"]},
        "sandbox": {"driver": "docker", "docker": {"dockerfile_path": "env/Dockerfile", "working_dir": "auto"}},
        "success_criteria": [
            {"type": "file_exists", "path": "seen.txt", "description": "the agent's script ran"},
            {"type": "run_command", "command": "sh evil.sh", "description": "the same script, at grading"},
        ],
    }
    (suite / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
    script = {"steps": [{"run_command": {"command": "sh evil.sh"}}, {"reply": "done"}]}
    (suite / "task.script.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    op.own(op.work)
    return suite / "task.yaml", outside


@pytest.mark.parametrize("who", OPERATORS)
def test_a_rehearsed_unit_is_held_like_any_bubblewrap_unit(who: str) -> None:
    require_driver("bubblewrap")
    secret = "aws-" + secrets.token_hex(8)
    with operator(who) as op:
        task, outside = _suite(op, secret)
        run_dir = op.work / "run"
        done = op.cli("run", str(task), "--rehearse", "-b", "script", "--run-dir", str(run_dir))
        assert done.returncode in (0, 1), done.stdout + done.stderr
        (path,) = list(run_dir.rglob("task.json"))
        record = json.loads(path.read_text())
        assert record["final_status"] == "SUCCESS", record.get("error_message") or done.stdout
        assert not (outside / "escaped.txt").exists(), "the unit wrote beside the run, on the host"
        workspace = Path(record["sandbox_path"])
        stolen = (workspace / "stolen.txt").read_text()
        assert secret not in stolen, stolen
        if who == "root":  # the replay ran as the harness's user; the agent runs as another, as under docker
            assert "Permission denied" in stolen and (workspace / "seen.txt").read_text() == "original\n", stolen
        leftovers = [p for p in run_dir.rglob("replay-tmp")] + [p for p in run_dir.rglob("root") if p.is_dir()]
        assert leftovers == [], leftovers
