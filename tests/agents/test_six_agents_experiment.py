"""examples/experiments/six-agents.yaml end to end: six agent kinds as arms on the scripted model.

Every arm plays the same scripted trajectory on its own tools, so the report must rank the arms
and say they are indistinguishable.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_agents import CLI_KINDS, require_binary

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "examples" / "experiments" / "six-agents.yaml"


def test_six_agents_are_indistinguishable_on_the_scripted_model(tmp_path: Path) -> None:
    for kind in CLI_KINDS:
        require_binary(kind)
    tasks = [str(ROOT / "examples" / "tasks" / name) for name in ("fix_a_bug", "negative")]
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "coder_eval", "run", *tasks, "-e", str(EXPERIMENT), "-b", "script"]
    env = {k: v for k, v in os.environ.items() if k != "API_BACKEND"}
    proc = subprocess.run(
        [*cmd, "-j", "3", "--run-dir", str(run_dir)], capture_output=True, text=True, timeout=600, env=env
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the negative example fails on every arm
    result = json.loads((run_dir / "experiment.json").read_text())
    arms = ["claude-code", "codex", "opencode", "pi", "gemini-cli", "antigravity"]
    assert result["variant_ids"] == arms
    for arm in arms:
        aggregate = result["variant_aggregates"][arm]
        assert (aggregate["tasks_succeeded"], aggregate["tasks_failed"], aggregate["tasks_error"]) == (1, 1, 0), arm
    report = (run_dir / "experiment.md").read_text()
    assert "## Ranking" in report
    assert "**The 6 arms are indistinguishable: identical mean scores on every task" in report
    ranking = report[report.index("## Ranking") :].split("## Tasks")[0]
    assert sorted(
        line.split("|")[2].strip()
        for line in ranking.splitlines()
        if line.startswith("| ") and "---" not in line and "Rank" not in line
    ) == sorted(arms)
    assert "indistinguishable" in (run_dir / "experiment.html").read_text()
