"""A small pack of Harbor tasks of different shapes, imported and linted under docker.

Each must fail with no agent and pass with its oracle (solve.sh at /solution, run in the
environment): a script solution scored by `{"score": ...}` in reward.json, a service the verifier
probes (kept alive for it), a multi-step task, and two tasks of one name under two orgs (nested
layout). One task writes no reward when the work is missing: with no agent that is an ERROR with
the reason, not a zero.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_harbor_oracle import cli, docker_ready, lint

TOML = "[agent]\ntimeout_sec = 120.0\n[verifier]\ntimeout_sec = 60.0\n[environment]\nallow_internet = false\n"
DOCKERFILE = "FROM coder-eval-base:latest\nWORKDIR /app\n"
R = "/logs/verifier/reward.txt"
SHAPES: dict[str, dict[str, str]] = {
    "orgA/json-score": {
        "solution/solve.sh": "echo done > /app/out.txt\n",
        "tests/test.sh": "if [ -f /app/out.txt ]; then s=1; else s=0; fi\n"
        'echo "{\\"score\\": $s}" > /logs/verifier/reward.json\n',
    },
    "orgB/json-score": {
        "solution/solve.sh": "printf 'b' > /app/b.txt\n",
        "tests/test.sh": f"if grep -q b /app/b.txt; then echo 1; else echo 0; fi > {R}\n",
    },
    "services/heartbeat": {
        "solution/solve.sh": "(i=0; while :; do i=$((i+1)); echo $i > /app/beat.new; mv /app/beat.new /app/beat; "
        "sleep 0.1; done) >/dev/null 2>&1 &\n"
        "sleep 0.3\n",
        "tests/test.sh": "a=$(cat /app/beat 2>/dev/null); sleep 0.6; b=$(cat /app/beat 2>/dev/null)\n"
        f'if [ -n "$a" ] && [ "$a" != "$b" ]; then echo 1; else echo 0; fi > {R}\n',
    },
    "multi/two-steps": {
        "task.toml+": '[[steps]]\nname = "first"\n[[steps]]\nname = "second"\n',
        "steps/first/instruction.md": "Create one.txt.\n",
        "steps/second/instruction.md": "Create two.txt.\n",
        "steps/first/tests/test.sh": f"if [ -f /app/one.txt ]; then echo 1; else echo 0; fi > {R}\n",
        "steps/second/tests/test.sh": f"if [ -f /app/two.txt ]; then echo 1; else echo 0; fi > {R}\n",
        "solution/solve.sh": "touch /app/one.txt /app/two.txt\n",
    },
    "errors/no-reward": {
        "solution/solve.sh": "touch /app/present\n",
        "tests/test.sh": f"echo 'checking /app/present'\ntest -f /app/present && echo 1 > {R}\n",
    },
}
PROMPTS = {
    "orgA/json-score": "Write the word done to out.txt in the working directory.\n",
    "orgB/json-score": "Create b.txt holding the single letter b.\n",
    "services/heartbeat": "Start a background process that keeps incrementing a counter in the file beat.\n",
    "errors/no-reward": "Make sure an empty file called present exists.\n",
}


def write_pack(root: Path) -> None:
    for rel, files in SHAPES.items():
        task = root / "pack" / rel
        (task / "environment").mkdir(parents=True)
        (task / "environment" / "Dockerfile").write_text(DOCKERFILE, encoding="utf-8")
        (task / "task.toml").write_text(TOML + files.get("task.toml+", ""), encoding="utf-8")
        if "steps/first/instruction.md" not in files:
            (task / "instruction.md").write_text(PROMPTS[rel], encoding="utf-8")
        for name, text in files.items():
            if name == "task.toml+":
                continue
            (task / name).parent.mkdir(parents=True, exist_ok=True)
            (task / name).write_text(text, encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(not docker_ready(), reason="needs docker and the coder-eval-base image")
def test_a_pack_of_shapes_fails_without_an_agent_and_passes_its_oracle(tmp_path: Path) -> None:
    write_pack(tmp_path)
    proc = cli("import", "harbor", "pack", "-o", "tasks", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = sorted(p.name for p in (tmp_path / "tasks").iterdir())
    assert names == [
        "errors-no-reward",
        "multi-two-steps",
        "orga-json-score",
        "orgb-json-score",
        "services-heartbeat",
    ]
    code, findings = lint(tmp_path, "tasks")
    assert code == 1 and len(findings) == 1, findings
    (hit,) = findings  # every task passes its oracle and fails without an agent, but one:
    assert hit["rule_id"] == "CE203" and hit["task_id"] == "errors-no-reward", findings
    assert "the verifier wrote no reward" in hit["message"] and "checking /app/present" in hit["message"]


@pytest.mark.slow
def test_the_same_pack_smoke_tests_without_docker_under_a_rehearsal(tmp_path: Path) -> None:
    """No daemon: the imported Dockerfiles replayed under bubblewrap give the same verdicts as docker."""
    if shutil.which("bwrap") is None:
        if os.environ.get("CI"):
            pytest.fail("bubblewrap is missing in CI (scripts/sandbox-deps.sh installs it)")
        pytest.skip("needs bubblewrap")
    write_pack(tmp_path)
    assert cli("import", "harbor", "pack", "-o", "tasks", cwd=tmp_path).returncode == 0
    planned = cli("plan", "tasks", "--rehearse", "-b", "script", "--oracle", cwd=tmp_path)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert "rehearsal: FROM coder-eval-base:latest: the host's system stands in for the base image" in planned.stdout
    proc = cli("lint", "tasks", "--rehearse", "-f", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    findings = [f for f in json.loads(proc.stdout)["findings"] if f["severity"] != "note"]
    (hit,) = findings
    assert hit["rule_id"] == "CE203" and hit["task_id"] == "errors-no-reward", findings
    assert "the verifier wrote no reward" in hit["message"] and "checking /app/present" in hit["message"]
