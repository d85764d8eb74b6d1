"""`plan --estimate` end to end: a scripted run at a priced model's rates, then a forecast of a bigger run.

The earlier run's task.json records give the task's tokens per unit (task history); an arm that
pins another model has no history and is priced from the stated per-turn assumption.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from clirun import cli
from test_spend_limit_run import write_priced_task

from coder_eval.agents.claude_code.options import bundled_cli
from coder_eval.pricing import pricing_for

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here"),
]


def test_estimate_from_task_history_and_from_an_assumption(tmp_path: Path) -> None:
    task = write_priced_task(tmp_path)
    env = {"API_BACKEND": ""}
    first = cli(
        "run",
        task,
        "-b",
        "script",
        "--repeats",
        "2",
        "--run-dir",
        tmp_path / "runs" / "first",
        cwd=tmp_path,
        timeout=600,
        env=env,
    )
    assert first.returncode == 0, first.stdout + first.stderr
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "models.yaml").write_text(
        yaml.safe_dump(
            {
                "experiment_id": "models",
                "variants": [{"variant_id": "sonnet"}, {"variant_id": "opus", "agent": {"model": "claude-opus-4-1"}}],
            }
        ),
        encoding="utf-8",
    )
    proc = cli(
        "plan",
        task,
        "-b",
        "script",
        "-e",
        "models",
        "--repeats",
        "3",
        "--estimate",
        "--per-turn-tokens",
        "1000:100",
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Each earlier unit made two calls of 1000 input + 100 output tokens at the sonnet rates.
    sonnet, opus = pricing_for("claude-sonnet-4-5"), pricing_for("claude-opus-4-1")
    assert sonnet is not None and opus is not None
    per_unit = sonnet.cost(2000, 200)
    assert f"  sonnet: 3 unit(s), ${3 * per_unit:.4f} – ${3 * per_unit:.4f}  (3 task history)" in proc.stdout
    turn = opus.cost(1000, 100)
    assert f"  opus: 3 unit(s), ${3 * turn:.4f} – ${3 * turn * 100:.4f}  (3 per-turn assumption)" in proc.stdout
    assert "cost forecast (2 earlier unit(s) under runs):" in proc.stdout
    assert f"  total: 6 unit(s), ${3 * per_unit + 3 * turn:.4f}" in proc.stdout

    bare = cli("plan", task, "-b", "script", "-e", "models", "--estimate", cwd=tmp_path, env=env)
    assert "plus 1 unit(s) without an estimate" in bare.stdout and "--per-turn-tokens" in bare.stdout
    wrong = cli("plan", task, "--estimate", "--per-turn-tokens", "lots", cwd=tmp_path, env=env)
    assert wrong.returncode == 2 and "IN:OUT" in wrong.stdout + wrong.stderr
