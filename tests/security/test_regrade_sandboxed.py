"""Grading an existing workspace runs the agent's code too: `evaluate RUN_DIR` and `evaluate TASK
WORKDIR` run criteria inside the task's own driver, never on the host.

The workspace holds a script the "agent" left (shipped here as a template, which is the same
thing to the grader): a `run_command` criterion runs it. It tries to read the operator's files,
write beside the run on the host, and find the operator's environment; under bubblewrap and docker
none of that may work, as root and as an ordinary user, and the grade stays the honest one.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import pytest
import yaml
from operators import DRIVERS, OPERATORS, Operator, operator, require_driver

pytestmark = pytest.mark.slow

EVIL = """#!/bin/sh
cat "{home}/.aws/credentials" > stolen.txt 2>&1
echo escaped > "{outside}/escaped.txt" 2>> stolen.txt
env >> stolen.txt
test -f must-exist-for-a-pass
"""


def _suite(op: Operator, driver: str, secret: str) -> tuple[Path, Path]:
    (op.home / ".aws").mkdir(exist_ok=True)
    (op.home / ".aws" / "credentials").write_text(f"aws_secret_access_key = {secret}\n")
    outside = op.work / "outside"
    outside.mkdir(mode=0o777)
    outside.chmod(0o777)
    suite = op.work / "suite"
    (suite / "template").mkdir(parents=True)
    (suite / "template" / "evil.sh").write_text(EVIL.format(home=op.home, outside=outside))
    task = {
        "task_id": "regrade",
        "description": "grading runs the workspace's own script",
        "initial_prompt": "unused",
        "agent": {"type": "none"},
        "sandbox": {"driver": driver, "template_sources": [{"type": "template_dir", "path": "template"}]},
        "success_criteria": [{"type": "run_command", "command": "sh evil.sh", "description": "the workspace's check"}],
    }
    (suite / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
    op.own(op.work)
    return suite / "task.yaml", outside


def _check(record: dict[str, object], workspace: Path, outside: Path, secret: str) -> None:
    assert record["final_status"] == "FAILURE", record
    assert not (outside / "escaped.txt").exists(), "grading wrote beside the run, on the host"
    stolen = (workspace / "stolen.txt").read_text()
    assert secret not in stolen and "OPERATOR_ONLY" not in stolen, stolen


@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize("driver", DRIVERS)
def test_evaluate_run_dir_grades_inside_the_driver(driver: str, who: str) -> None:
    require_driver(driver)
    secret = "aws-" + secrets.token_hex(8)
    with operator(who) as op:
        task, outside = _suite(op, driver, secret)
        run_dir = op.work / "run"
        env = {"OPERATOR_ONLY": "OPERATOR_ONLY"}
        executed = op.cli("execute", str(task), "--run-dir", str(run_dir), env=env)
        assert executed.returncode == 0, executed.stdout + executed.stderr
        graded = op.cli("evaluate", str(run_dir), "--allow-recorded-commands", env=env)
        assert graded.returncode in (0, 1), graded.stdout + graded.stderr
        (path,) = list(run_dir.rglob("task.json"))
        record = json.loads(path.read_text())
        _check(record, Path(record["sandbox_path"]), outside, secret)


@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize("driver", DRIVERS)
def test_evaluate_task_workdir_grades_inside_the_driver(driver: str, who: str) -> None:
    require_driver(driver)
    secret = "aws-" + secrets.token_hex(8)
    with operator(who) as op:
        task, outside = _suite(op, driver, secret)
        workdir = op.work / "workdir"
        workdir.mkdir()
        (workdir / "evil.sh").write_text((task.parent / "template" / "evil.sh").read_text())
        op.own(workdir)
        owner = os.stat(workdir).st_uid
        run_dir = op.work / "run"
        env = {"OPERATOR_ONLY": "OPERATOR_ONLY"}
        graded = op.cli("evaluate", str(task), str(workdir), "--in-place", "--run-dir", str(run_dir), env=env)
        assert graded.returncode in (0, 1), graded.stdout + graded.stderr
        (path,) = list(run_dir.rglob("task.json"))
        _check(json.loads(path.read_text()), workdir, outside, secret)
        assert os.stat(workdir).st_uid == owner, "grading in place changed who owns the directory"


LEAK_CHECK = """#!/bin/sh
cat "{home}/.aws/credentials" > stolen.txt 2>&1
echo escaped > "{outside}/escaped.txt" 2>> stolen.txt
env >> stolen.txt
! grep -q -e aws- -e OPERATOR_ONLY stolen.txt
"""


@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize("driver", DRIVERS)
def test_flaky_regrade_grades_copies_inside_the_driver(driver: str, who: str) -> None:
    """`flaky --regrade` grades copies of the preserved workspace in the task's driver: the check passes
    only while nothing of the operator's leaks in, every grade agrees, and nothing lands beside the run."""
    require_driver(driver)
    secret = "aws-" + secrets.token_hex(8)
    with operator(who) as op:
        task, outside = _suite(op, driver, secret)
        (task.parent / "template" / "evil.sh").write_text(LEAK_CHECK.format(home=op.home, outside=outside))
        op.own(op.work)
        run_dir = op.work / "run"
        env = {"OPERATOR_ONLY": "OPERATOR_ONLY"}
        ran = op.cli("run", str(task), "--run-dir", str(run_dir), env=env)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        regraded = op.cli("flaky", str(run_dir), "--all", "--regrade", "2", "--allow-recorded-commands", env=env)
        assert regraded.returncode == 0, regraded.stdout + regraded.stderr
        assert "grader check: 1 unit(s) re-graded, 0 whose grade differs" in regraded.stdout
        [unit] = json.loads((run_dir / "regrades.json").read_text())["units"].values()
        assert [g["criteria"][0]["passed"] for g in unit["regrades"]] == [True, True], unit
        assert not (outside / "escaped.txt").exists(), "a re-grade wrote beside the run, on the host"
        assert not list(run_dir.rglob("regrade-workspace")), "a re-grade's copy was left behind"
