"""pass@k end to end: Claude Code on the scripted model, where replicates 1 and 3 write the wrong answer.

The script's `replicates:` entry gives those two replicates other steps, so the four replicates
of the task come out ✓✗✓✗ on every run; the records and reports must show pass@k and pass^k
computed from exactly that.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from clirun import cli

from coder_eval.agents.claude_code.options import bundled_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here"),
]


def write_task(root: Path) -> Path:
    task = {
        "task_id": "answer",
        "description": "write the answer",
        "initial_prompt": "Write the answer to out.txt.",
        "agent": {
            "type": "claude-code",
            "permission_mode": "acceptEdits",
            "allowed_tools": ["Read", "Write", "Edit", "Bash"],
            "setting_sources": [],
        },
        "success_criteria": [
            {"type": "file_contains", "path": "out.txt", "includes": ["forty-two"], "description": "right answer"}
        ],
    }
    wrong = [{"write_file": {"path": "out.txt", "content": "seven\n"}}, {"reply": "Done."}]
    script = {
        "steps": [{"write_file": {"path": "out.txt", "content": "forty-two\n"}}, {"reply": "Done."}],
        "replicates": {1: wrong, 3: wrong},
    }
    (root / "answer.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
    (root / "answer.script.yaml").write_text(yaml.safe_dump(script, sort_keys=False), encoding="utf-8")
    return root / "answer.yaml"


def test_replicates_that_pass_and_fail_give_pass_k(tmp_path: Path) -> None:
    task = write_task(tmp_path)
    run_dir = tmp_path / "run"
    proc = cli(
        "run",
        task,
        "-b",
        "script",
        "--repeats",
        "4",
        "-j",
        "2",
        "--run-dir",
        run_dir,
        cwd=tmp_path,
        timeout=600,
        env={"API_BACKEND": ""},
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # two replicates fail by design
    statuses = [
        json.loads((run_dir / "default" / "answer" / f"{i:02d}" / "task.json").read_text())["final_status"]
        for i in range(4)
    ]
    assert statuses == ["SUCCESS", "FAILURE", "SUCCESS", "FAILURE"]
    variant = json.loads((run_dir / "default" / "variant.json").read_text())
    by_k = {f["k"]: f for f in variant["pass_k"]}
    # n = 4, c = 2: pass@2 = 1 − C(2,2)/C(4,2) = 5/6, pass^2 = C(2,2)/C(4,2) = 1/6; at k = 4, any / all.
    assert by_k[1]["pass_at_k"] == pytest.approx(0.5)
    assert by_k[2]["pass_at_k"] == pytest.approx(5 / 6) and by_k[2]["pass_hat_k"] == pytest.approx(1 / 6)
    assert by_k[4]["pass_at_k"] == 1.0 and by_k[4]["pass_hat_k"] == 0.0
    experiment = json.loads((run_dir / "experiment.json").read_text())
    assert experiment["variant_aggregates"]["default"]["pass_k"] == variant["pass_k"]
    report = (run_dir / "experiment.md").read_text(encoding="utf-8")
    assert "## pass@k and pass^k" in report and "| answer | ✓✗✓✗ |" in report
    assert "| default | 2 | 0.833 |" in report
    assert "✓✗✓✗" in (run_dir / "default" / "variant.md").read_text(encoding="utf-8")
    assert "✓✗✓✗" in (run_dir / "experiment.html").read_text(encoding="utf-8")


def test_flaky_lists_the_task_and_the_criterion_that_flips(tmp_path: Path) -> None:
    """Two runs of two replicates each (✓✗ both times): `coder-eval flaky` pools them."""
    task = write_task(tmp_path)
    for name in ("run-1", "run-2"):
        proc = cli(
            "run",
            task,
            "-b",
            "script",
            "--repeats",
            "2",
            "--run-dir",
            tmp_path / name,
            cwd=tmp_path,
            timeout=600,
            env={"API_BACKEND": ""},
        )
        assert proc.returncode == 1, proc.stdout + proc.stderr
    listing = cli("flaky", tmp_path / "run-1", tmp_path / "run-2", cwd=tmp_path)
    assert listing.returncode == 0, listing.stdout + listing.stderr
    lines = listing.stdout.splitlines()
    # 6 pairs of units, 2 agree; inside each run the pair disagrees; across runs 2 of 4 agree
    assert lines[0] == (
        "answer (default · claude-code · script): stability 0.33 (within runs 0.00, across runs 0.50), "
        "2 of 4 graded unit(s) succeeded"
    )
    assert "  runs: run-1 ✓✗ · run-2 ✓✗" in lines
    assert "  flips: file_contains: right answer: passed 2 of 4 (scores 0.000–1.000)" in lines
    assert "    passed in run-1#0, run-2#0 (score 1.000): all strings as expected" in lines
    assert "    failed in run-1#1, run-2#1 (score 0.000): missing: 'forty-two'" in lines
    as_json = json.loads(cli("flaky", tmp_path / "run-1", "--json", cwd=tmp_path).stdout)
    [task] = as_json["tasks"]
    assert task["task_id"] == "answer" and task["flaky"] is True and task["stability"] == 0.0
    assert task["flips"][0]["failing"]["reasons"][0]["text"] == "missing: 'forty-two'"
    missing = cli("flaky", tmp_path / "nowhere", cwd=tmp_path)
    assert missing.returncode == 2 and "not a run directory" in missing.stdout + missing.stderr
