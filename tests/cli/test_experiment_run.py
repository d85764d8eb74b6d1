"""A two-arm, three-replicate experiment end to end: every report file, and verdicts that match the data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from clirun import cli

pytestmark = pytest.mark.slow

TASKS = ["alpha", "beta", "gamma", "delta", "epsilon"]  # five: the fewest a decided verdict accepts


def write_suite(root: Path, *, arm_b_fixes: bool) -> None:
    (root / "tasks").mkdir()
    for name in TASKS:
        (root / "tasks" / f"{name}.yaml").write_text(
            yaml.safe_dump(
                {
                    "task_id": name,
                    "description": f"{name} needs out.txt",
                    "agent": {"type": "none"},
                    "success_criteria": [
                        {
                            "type": "file_contains",
                            "path": "out.txt",
                            "includes": ["hello"],
                            "description": "out.txt says hello",
                        }
                    ],
                }
            )
        )
    # Arm B differs from A only by a starter file that satisfies the criterion (when asked to).
    overlay = [{"type": "starter_files", "files": [{"path": "out.txt", "content": "hello"}]}] if arm_b_fixes else []
    (root / "experiments").mkdir()
    (root / "experiments" / "ab.yaml").write_text(
        yaml.safe_dump(
            {
                "experiment_id": "ab",
                "description": "does the overlay help?",
                "defaults": {"repeats": 3},
                "variants": [{"variant_id": "arm-a"}, {"variant_id": "arm-b", "template_sources": overlay}],
            }
        )
    )


def test_clear_winner(tmp_path: Path) -> None:
    write_suite(tmp_path, arm_b_fixes=True)
    run_dir = tmp_path / "run"
    proc = cli("run", "tasks", "-e", "ab", "-j", "2", "--run-dir", run_dir, cwd=tmp_path)
    assert proc.returncode == 1  # arm A fails by design
    for name in ("run.json", "run.md", "experiment.json", "experiment.md", "experiment.html"):
        assert (run_dir / name).is_file(), name
    for arm in ("arm-a", "arm-b"):
        for name in ("variant.json", "variant.md", "variant.html"):
            assert (run_dir / arm / name).is_file()
        assert sorted(p.name for p in (run_dir / arm / "alpha").iterdir()) == ["00", "01", "02"]
    result = json.loads((run_dir / "experiment.json").read_text())
    assert result["variant_ids"] == ["arm-a", "arm-b"]
    assert result["per_replicate_scores"]["arm-b"]["alpha"] == [1.0, 1.0, 1.0]
    assert all(s["best_variant"] == "arm-b" for s in result["task_summaries"])
    assert json.loads((run_dir / "arm-b" / "variant.json").read_text())["pass_rate"] == 1.0
    report = (run_dir / "experiment.md").read_text()
    assert "arm-b better than arm-a on 5 of 5 tasks (N = 5 tasks × 3+ replicates" in report
    task = json.loads((run_dir / "arm-b" / "alpha" / "01" / "task.json").read_text())
    assert task["task_config"]["lineage"]["sandbox.template_sources"]["source"] == "variant"


def test_indistinguishable_arms(tmp_path: Path) -> None:
    write_suite(tmp_path, arm_b_fixes=False)
    run_dir = tmp_path / "run"
    cli("run", "tasks", "-e", "ab", "-j", "2", "--run-dir", run_dir, cwd=tmp_path)
    report = (run_dir / "experiment.md").read_text()
    assert "better than" not in report
    assert "No difference between arm-a and arm-b: identical mean scores on all 5 tasks" in report
