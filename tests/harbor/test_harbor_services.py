"""sandbox.keep_services: a service left running (by the agent, here by the oracle's solve.sh) is still
alive when the verifier probes it, under an isolating driver; without the opt-in it is ended first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from test_harbor_oracle import cli

SERVE = "(i=0; while :; do i=$((i+1)); echo $i > beat.new; mv beat.new beat; sleep 0.1; done) >/dev/null 2>&1 &\n"
SERVE += "sleep 0.3\n"  # the counter is replaced whole (mv), so a probe never reads it half-written
PROBE = 'a=$(cat beat); sleep 0.6; b=$(cat beat); echo "beat $a then $b"; [ "$a" != "$b" ]'


def service_task(root: Path, driver: str, *, keep: bool) -> None:
    folder = root / "svc"
    (folder / "solution").mkdir(parents=True)
    (folder / "solution" / "solve.sh").write_text(SERVE, encoding="utf-8")
    doc = {
        "task_id": "svc",
        "description": "a service the verifier probes",
        "initial_prompt": "Start the heartbeat service.",
        "agent": {"type": "claude-code"},
        "sandbox": {"driver": driver, "keep_services": keep},
        "reference": {"directory": "solution", "solve": {"command": 'bash "$REFERENCE_DIR/solve.sh"'}},
        "success_criteria": [{"type": "run_command", "command": PROBE, "description": "the service is alive"}],
    }
    (folder / "task.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")


def lint_oracle(root: Path) -> tuple[set[str], str]:
    proc = cli("lint", "svc", "-f", "json", "--keep-runs", "kept", cwd=root)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    rules = {f["rule_id"] for f in json.loads(proc.stdout)["findings"] if f["severity"] != "note"}
    log = next((root / "kept" / "oracle").rglob("task.log")).read_text(encoding="utf-8")
    return rules, log


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
@pytest.mark.parametrize(("keep", "rules"), [(True, set()), (False, {"CE202"})])
def test_the_service_lives_into_grading_only_when_kept(tmp_path: Path, keep: bool, rules: set[str]) -> None:
    service_task(tmp_path, "bubblewrap", keep=keep)
    found, log = lint_oracle(tmp_path)
    assert found == rules, log
    assert ("keep_services: the processes left running stay alive into grading" in log) is keep


def test_under_tempdir_the_service_is_ended_and_the_log_says_why(tmp_path: Path) -> None:
    service_task(tmp_path, "tempdir", keep=True)
    found, log = lint_oracle(tmp_path)
    assert found == {"CE202"}
    assert "keep_services is honoured under bubblewrap and docker only; under tempdir" in log
