"""`--rehearse`: a docker task run without a daemon, its Dockerfile replayed under bubblewrap, through the CLI."""

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

pytestmark = pytest.mark.slow

DOCKERFILE = """\
FROM debian:bookworm-slim
ARG WHO=world
ENV GREETING="hello $WHO" PATH=/tool/bin:$PATH
RUN apt-get update && apt-get install -y jq && mkdir -p /logs/verifier /tool/bin && chmod 1777 /logs/verifier
WORKDIR /app
COPY data/ ./data/
COPY --chmod=755 greet.sh /tool/bin/greet
COPY data/seed.txt /tests/
RUN <<EOF
echo "$GREETING" > greeting.txt
echo carried > /tmp/carry
EOF
RUN cat /tmp/carry >> greeting.txt
"""
CHECK = (
    'test "$PWD" = /app && test "$(cat greeting.txt)" = "hello world\ncarried" && test -f data/seed.txt '
    "&& test -f /tests/seed.txt && test -w /logs/verifier && test ! -e /tmp/carry && greet && test -f out.txt"
)


def cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("API_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "coder_eval", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(autouse=True)
def _bubblewrap() -> None:
    if shutil.which("bwrap") is None:
        if os.environ.get("CI"):
            pytest.fail("bubblewrap is missing in CI (scripts/sandbox-deps.sh installs it)")
        pytest.skip("needs bubblewrap")


def write_task(root: Path, dockerfile: str = DOCKERFILE, **extra: Any) -> Path:
    env = root / "env"
    (env / "data").mkdir(parents=True)
    (env / "Dockerfile").write_text(dockerfile, encoding="utf-8")
    (env / "data" / "seed.txt").write_text("seed\n", encoding="utf-8")
    (env / "greet.sh").write_text('#!/bin/sh\necho "$GREETING"\n', encoding="utf-8")
    (root / "ref").mkdir()
    (root / "ref" / "out.txt").write_text("solved\n", encoding="utf-8")
    doc = {
        "task_id": "rehearsed",
        "description": "a docker task rehearsed without a daemon",
        "initial_prompt": "Write out.txt",
        "agent": {"type": "none"},
        "sandbox": {"driver": "docker", "docker": {"dockerfile_path": "env/Dockerfile", "working_dir": "auto"}},
        "success_criteria": [{"type": "run_command", "command": CHECK, "description": "the replayed image"}],
        "reference": {"directory": "ref"},
        **extra,
    }
    path = root / "task.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def record(run_dir: Path) -> dict[str, Any]:
    (path,) = list(run_dir.rglob("task.json"))
    return dict(json.loads(path.read_text(encoding="utf-8")))


def test_the_replayed_image_is_what_the_unit_sees_and_the_oracle_passes(tmp_path: Path) -> None:
    task = write_task(tmp_path / "suite")
    # lint: with no agent the task must fail, with its reference (the oracle) it must pass
    linted = cli("lint", task, "--rehearse", "--rehearse-assume", "apt-get *", "-f", "json", cwd=tmp_path)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    findings = [f for f in json.loads(linted.stdout)["findings"] if f["severity"] != "note"]
    assert findings == []
    # a run keeps what the replay said in the unit's log
    ran = cli("run", task, "--rehearse", "--rehearse-assume", "apt-get *", "--run-dir", "r", cwd=tmp_path)
    assert ran.returncode == 1 and record(tmp_path / "r")["final_status"] == "FAILURE", ran.stdout + ran.stderr
    assert "stdout: 'hello world'" in ran.stdout  # everything held up to out.txt, which only the oracle writes
    log = next((tmp_path / "r").rglob("task.log")).read_text(encoding="utf-8")
    assert "FROM debian:bookworm-slim: the host's system stands in for the base image" in log
    assert "line 4: `apt-get install -y jq` skipped (assume_done 'apt-get *')" in log


def test_plan_and_run_refuse_a_step_that_needs_the_network_alike(tmp_path: Path) -> None:
    task = write_task(tmp_path / "suite")
    planned = cli("plan", task, "--rehearse", "-b", "script", cwd=tmp_path)
    assert planned.returncode == 1, planned.stdout
    said = "line 4: `apt-get update` needs the network (apt-get update), which a rehearsal does not have"
    assert said in planned.stdout and "--rehearse-assume 'apt-get *'" in planned.stdout
    assert "0 of 1 task files valid" in planned.stdout
    ran = cli("run", task, "--rehearse", "--run-dir", "r", cwd=tmp_path)
    assert ran.returncode == 2 and said in " ".join(ran.stderr.split()), ran.stderr
    assert not (tmp_path / "r").exists() or not list((tmp_path / "r").rglob("task.json"))


def test_a_failing_step_ends_the_unit_in_error_naming_its_line_and_why(tmp_path: Path) -> None:
    dockerfile = "FROM debian\nWORKDIR /app\nRUN echo one > a.txt\nRUN touch /usr/local/bin/mine\n"
    task = write_task(tmp_path / "suite", dockerfile)
    ran = cli("run", task, "--rehearse", "--run-dir", "r", cwd=tmp_path)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    done = record(tmp_path / "r")
    assert done["final_status"] == "ERROR"
    message = done["error_message"]
    assert "Dockerfile, line 4: `RUN touch /usr/local/bin/mine` failed (exit 1)" in message
    assert "host's system directories, which a rehearsal shows read-only" in message
    assert not Path("/usr/local/bin/mine").exists()


def test_a_write_the_unit_could_not_be_shown_is_refused(tmp_path: Path) -> None:
    """A step writing beside a directory the harness mounts (here: beside its own venv) would be lost."""
    scratch = Path(sys.prefix).resolve().parent  # the venv is shown to units at its path: its parent is a stub
    dockerfile = f"FROM debian\nRUN mkdir -p {scratch}/planted && echo x > {scratch}/planted/file\n"
    task = write_task(tmp_path / "suite", dockerfile)
    ran = cli("run", task, "--rehearse", "--run-dir", "r", cwd=tmp_path)
    done = record(tmp_path / "r")
    assert done["final_status"] == "ERROR", ran.stdout
    assert "beside directories the harness itself mounts" in done["error_message"]
    assert not (scratch / "planted").exists()


def test_regrading_a_rehearsed_run_replays_the_image_but_keeps_the_graded_work(tmp_path: Path) -> None:
    dockerfile = "FROM debian\nWORKDIR /app\nCOPY data/ ./data/\nRUN mkdir -p /grading && chmod 1777 /grading\n"
    check = 'grep -q solved data/seed.txt && test -d /grading && test "$PWD" = /app'
    task = write_task(
        tmp_path / "suite",
        dockerfile,
        success_criteria=[{"type": "run_command", "command": check, "description": "the agent's work, graded"}],
        pre_run=[{"command": "echo solved > data/seed.txt"}],  # the work an agent would have done
    )
    executed = cli("execute", task, "--rehearse", "--run-dir", "r", cwd=tmp_path)
    assert executed.returncode == 0, executed.stdout + executed.stderr
    graded = cli("evaluate", tmp_path / "r", "--allow-recorded-commands", cwd=tmp_path)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    done = record(tmp_path / "r")
    assert done["final_status"] == "SUCCESS", done.get("error_message")
    assert (tmp_path / done["sandbox_path"] / "data" / "seed.txt").read_text(encoding="utf-8") == "solved\n"
