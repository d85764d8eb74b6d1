"""Containment under a hostile agent: no privilege inside, no host program the unit wrote, no
shared state between units, for each isolating driver, with the harness as root and as an
ordinary user. One run of the hostile suite (hostile_suite.py) per driver and operator feeds
every test below; each test checks one attack class and the honest grade.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hostile_suite import Suite, write_suite
from operators import DRIVERS, OPERATORS, Operator, operator, require_driver

pytestmark = pytest.mark.slow

HARNESS_SITE = sysconfig.get_paths()["purelib"]
SECRET = "sk-ant-containment-" + os.urandom(8).hex()


@dataclass
class Outcome:
    driver: str
    operator: Operator
    suite: Suite
    records: dict[str, dict[str, Any]]
    output: str
    venv_before: set[str]

    def loot(self, task: str, name: str) -> str:
        path = Path(self.records[task]["sandbox_path"]) / name
        return path.read_text(errors="replace") if path.is_file() else ""

    def scores(self, task: str) -> dict[str, float | None]:
        return {c["description"]: c["score"] for c in self.records[task]["success_criteria_results"]}


def _node_here(driver: str) -> bool:
    """`sandbox.node` installs run inside the unit: the base docker image has no npm."""
    return driver == "bubblewrap" and shutil.which("npm") is not None


def _venv_listing() -> set[str]:
    found = set()
    for here, _dirs, files in os.walk(HARNESS_SITE):
        if "__pycache__" in here:
            continue
        for name in files:
            found.add(os.path.relpath(os.path.join(here, name), HARNESS_SITE))
    return found


def _survivors(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(pid))
            except OSError:
                continue
    return found


@pytest.fixture(scope="module", params=[(d, o) for d in DRIVERS for o in OPERATORS], ids=lambda p: f"{p[0]}-{p[1]}")
def outcome(request: pytest.FixtureRequest) -> Iterator[Outcome]:
    """One run of the hostile suite per driver and operator, shared by the tests of this module."""
    driver, who = request.param
    require_driver(driver)
    with operator(who) as op:
        suite = write_suite(op.work, driver, HARNESS_SITE, sys.prefix, with_node=_node_here(driver))
        (op.home / ".aws").mkdir()
        (op.home / ".aws" / "credentials").write_text(f"aws_secret_access_key = {SECRET}\n")
        op.own(op.work)
        suite.uv_cache.mkdir()
        op.own(suite.uv_cache)
        before = _venv_listing()
        env = {"ANTHROPIC_API_KEY": SECRET, "UV_CACHE_DIR": str(suite.uv_cache)}
        run_dir = op.work / "run"
        args = ["run", *map(str, suite.tasks), "-b", "script", "-j", "1", "--run-dir", str(run_dir)]
        proc = op.cli(*args, env=env)
        try:
            records = {}
            for path in run_dir.rglob("task.json"):
                record = json.loads(path.read_text())
                records[record["task_id"]] = record
            assert set(records) == {"a-attacker", "b-victim"}, proc.stdout + proc.stderr
            yield Outcome(driver, op, suite, records, proc.stdout + proc.stderr, before)
        finally:
            for pid in _survivors(suite.marker):
                os.kill(pid, 9)
            # a safety net should containment ever break: the proofs the attack leaves behind go
            for proof in (Path(HARNESS_SITE) / "zz_ce_hostile.pth", Path("/usr/ce_hostile"), Path("/usr/ce_hostile2")):
                if proof.exists():
                    proof.unlink()
            shutil.rmtree(suite.escape, ignore_errors=True)
            if os.environ.get("CE_KEEP_SECURITY_RUNS"):
                shutil.copytree(
                    op.work, Path("/tmp/ce-security-kept") / f"{driver}-{who}", symlinks=True, dirs_exist_ok=True
                )


def test_units_hold_no_privilege(outcome: Outcome) -> None:
    caps = outcome.loot("a-attacker", "loot/caps.txt")
    assert caps, outcome.output
    for line in caps.splitlines():
        name, value = line.split(":")
        if name in ("CapEff", "CapPrm"):
            assert int(value.strip(), 16) == 0, caps
    assert outcome.loot("a-attacker", "loot/uid.txt").strip() != "0"
    mounts = outcome.loot("a-attacker", "loot/mount.txt")
    for sign in ("REMOUNTED", "PTH_WRITTEN", "USR_WRITTEN", "UNMOUNTED"):
        assert sign not in mounts, mounts
    assert "NESTED" not in outcome.loot("a-attacker", "loot/nested.txt")
    if outcome.driver == "bubblewrap":  # the host's /etc is what a bubblewrap unit sees
        assert "root:" not in outcome.loot("a-attacker", "loot/shadow.txt")
    assert not Path("/usr/ce_hostile").exists() and not Path("/usr/ce_hostile2").exists()
    assert _venv_listing() == outcome.venv_before, "a file appeared in the harness's venv"
    assert not os.listdir(outcome.suite.escape), "something the unit wrote ran on the host"


def test_every_writable_path_entry_was_planted_and_none_ran_on_the_host(outcome: Outcome) -> None:
    planted = outcome.loot("a-attacker", "loot/writable_path.txt").split()
    workspace = outcome.records["a-attacker"]["sandbox_path"]
    names = {Path(p).name if not p.endswith("/bin") else "/".join(Path(p).parts[-2:]) for p in planted}
    expected = {"mocks", ".venv/bin"} | ({".bin"} if _node_here(outcome.driver) else set())
    assert expected <= names | {Path(p).name for p in planted}, (planted, workspace)
    # record_cli's shims are the harness's, shared read-only: not a PATH entry the unit can write
    assert "cli_mocks" not in names and not any("record_cli" in p for p in planted), planted
    grading = outcome.loot("a-attacker", "loot/writable_path_grading.txt").split()
    assert grading, "the grading-time attack did not run"
    hijacks = outcome.suite.escape / "hijack"
    assert not hijacks.exists(), hijacks.read_text()


def test_the_docker_client_keeps_its_own_configuration(outcome: Outcome) -> None:
    """`~/.docker` in the unit's HOME redirects nothing: later docker calls still reach the real daemon."""
    assert not (outcome.suite.escape / "hijack").exists()
    # the victim ran after the attacker wrote its ~/.docker: its grade is the honest one
    assert outcome.records["b-victim"]["final_status"] == "FAILURE", outcome.output
    assert outcome.scores("b-victim") == {"task grader": 0.0, "clean package": 1.0}


def test_the_shared_task_view_cannot_be_rewritten(outcome: Outcome) -> None:
    loot = outcome.loot("a-attacker", "loot2.txt")
    assert loot, "the grading-time attack did not run"
    assert "VIEW_WRITTEN" not in loot and "SHARE_REMOUNTED" not in loot, loot
    assert outcome.scores("b-victim")["task grader"] == 0.0, "the victim's honest failure passed"


def test_a_units_package_edits_reach_no_other_unit_nor_the_cache(outcome: Outcome) -> None:
    assert "VENV_EDITED" in outcome.loot("a-attacker", "loot2.txt"), "the attacker could not even edit its own venv"
    assert outcome.scores("b-victim")["clean package"] == 1.0
    for here, _dirs, files in os.walk(outcome.suite.uv_cache):
        for name in files:
            path = Path(here) / name
            if path.is_file() and not path.is_symlink():
                assert b"POISONED" not in path.read_bytes(), f"the uv cache was edited: {path}"


def test_grades_are_honest_and_nothing_outlives_the_run(outcome: Outcome) -> None:
    attacker = outcome.records["a-attacker"]
    assert attacker["final_status"] == "FAILURE", outcome.output
    assert outcome.scores("a-attacker") == {"the attack ran": 1.0, "grading-time attack": 0.0}
    assert not _survivors(outcome.suite.marker), "a process the unit left behind outlived it"
    run_dir = outcome.operator.work / "run"
    for path in run_dir.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert SECRET.encode() not in path.read_bytes(), f"a secret reached {path}"
