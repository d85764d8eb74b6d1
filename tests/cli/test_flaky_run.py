"""Flaky tasks end to end on the scripted model: a grader defect found by re-grading the same workspace,
and a quarantine that an experiment's statistics, verdict and reports honour.

Claude Code plays the scripts; replicate 1 of `answer` writes the wrong answer (agent variance),
and the `coin toss` criterion reads /dev/urandom (a nondeterministic grader).
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
AGENT = {
    "type": "claude-code",
    "permission_mode": "acceptEdits",
    "allowed_tools": ["Read", "Write", "Edit", "Bash"],
    "setting_sources": [],
}
RIGHT = [{"write_file": {"path": "out.txt", "content": "forty-two\n"}}, {"reply": "Done."}]
WRONG = [{"write_file": {"path": "out.txt", "content": "seven\n"}}, {"reply": "Done."}]
COIN = {"type": "run_command", "command": "test $(od -An -N1 -tu1 /dev/urandom) -lt 128", "description": "coin toss"}
ROUNDS = 6
"""Rounds of three re-grades of two units: a fair coin agrees with itself over them all with odds below 1e-10."""


def write_task(root: Path, task_id: str, criteria: list[dict[str, object]], wrong: tuple[int, ...] = ()) -> Path:
    task = {
        "task_id": task_id,
        "description": "write the answer",
        "initial_prompt": "Write the answer to out.txt.",
        "agent": AGENT,
    }
    task["success_criteria"] = [
        {"type": "file_contains", "path": "out.txt", "includes": ["forty-two"], "description": "right answer"},
        *criteria,
    ]
    script = {"steps": RIGHT, "replicates": dict.fromkeys(wrong, WRONG)}
    (root / f"{task_id}.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
    (root / f"{task_id}.script.yaml").write_text(yaml.safe_dump(script, sort_keys=False), encoding="utf-8")
    return root / f"{task_id}.yaml"


def run(*args: str | Path, cwd: Path) -> None:
    proc = cli("run", *args, "-b", "script", "-j", "2", cwd=cwd, timeout=600, env={"API_BACKEND": ""})
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr


def test_a_grader_that_differs_on_the_same_workspace_is_flagged_apart_from_agent_variance(tmp_path: Path) -> None:
    task = write_task(tmp_path, "answer", [COIN], wrong=(1,))
    run(task, "--repeats", "2", "--run-dir", tmp_path / "run", cwd=tmp_path)
    record = tmp_path / "run" / "default" / "answer" / "00" / "task.json"
    before = record.read_bytes()
    refused = cli("flaky", tmp_path / "run", "--regrade", "1", cwd=tmp_path)
    assert refused.returncode == 1 and "--allow-recorded-commands" in refused.stdout + refused.stderr
    assert "/dev/urandom" in refused.stderr  # the command it would have run, named
    assert not (tmp_path / "run" / "regrades.json").exists()  # refused before anything ran
    for _ in range(ROUNDS):  # re-grades accumulate in regrades.json; a later listing uses them all
        proc = cli(
            "flaky", tmp_path / "run", "--all", "--regrade", "3", "--allow-recorded-commands", cwd=tmp_path, timeout=600
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        if "1 task(s) with a grader defect" in proc.stdout:
            break
    else:
        raise AssertionError(proc.stdout)
    assert "re-grading default/answer/01 (3 of 3)" in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("answer (default · claude-code · script): stability ")  # ✓✗ or ✗✗, by the coin
    assert any(line.startswith("  grader defect: its grade differs on the same workspace") for line in lines)
    assert any("run_command: coin toss: passed" in line and "grade(s)" in line for line in lines)
    assert any(line.startswith("    recorded: ") for line in lines)
    assert record.read_bytes() == before  # re-grades work on copies; the record stays as it was
    assert not list((tmp_path / "run").rglob("regrade-workspace"))  # the copies are gone
    stored = json.loads((tmp_path / "run" / "regrades.json").read_text())
    assert sorted(stored["units"]) == ["default/answer/00", "default/answer/01"]
    again = cli("flaky", tmp_path / "run", "--json", cwd=tmp_path)  # no --regrade: the earlier re-grades count
    listing = json.loads(again.stdout)
    assert listing["tasks"][0]["grader_defect"] is True
    file_check = [f for c in listing["grader_checks"] for f in c["flips"] if f["title"].startswith("file_contains")]
    assert file_check == []  # the answer's own check is deterministic: only the coin flips on one workspace


def test_a_quarantine_is_applied_and_reported_and_unknown_names_warn_in_plan(tmp_path: Path) -> None:
    write_task(tmp_path, "steady", [])
    write_task(tmp_path, "wobbly", [], wrong=(0,))
    experiment = {
        "experiment_id": "quarantined",
        "variants": [{"variant_id": "first"}, {"variant_id": "second"}],
        "quarantine": {"tasks": ["wobbly", "wobbley-typo"], "reason": "replicate 0 writes the wrong answer"},
    }
    path = tmp_path / "experiment.yaml"
    path.write_text(yaml.safe_dump(experiment, sort_keys=False), encoding="utf-8")
    plan = cli(
        "plan", tmp_path / "steady.yaml", tmp_path / "wobbly.yaml", "-e", path, "-b", "script",
        cwd=tmp_path, env={"API_BACKEND": ""},
    )  # fmt: skip
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert "quarantine names task 'wobbley-typo', which none of these tasks is (did you mean 'wobbly'?)" in plan.stderr
    assert "quarantine: wobbly, wobbley-typo (left out of the statistics and the verdict)" in plan.stdout
    proc = cli(
        "run", tmp_path / "steady.yaml", tmp_path / "wobbly.yaml", "-e", path, "-b", "script", "-j", "2",
        "--run-dir", tmp_path / "run", cwd=tmp_path, timeout=600, env={"API_BACKEND": ""},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr  # wobbly fails in both arms
    assert "(1 quarantined task(s) left out)" in proc.stdout + proc.stderr  # the verdict printed at the end
    data = json.loads((tmp_path / "run" / "experiment.json").read_text())
    assert [(q["task_id"], q["mode"], q["in_run"]) for q in data["quarantine"]] == [
        ("wobbly", "exclude", True),
        ("wobbley-typo", "exclude", False),
    ]
    report = (tmp_path / "run" / "experiment.md").read_text(encoding="utf-8")
    assert "## Quarantine" in report and "wobbly left out of every statistic and the verdict" in report
    assert "Not in this run: wobbley-typo" in report and "Why: replicate 0 writes the wrong answer" in report
    assert "| `first` | 2 | 1 | 1 | 0 | 0 | 1.000 |" in report  # counts keep every row; the mean leaves wobbly out
    assert "| wobbly (quarantined: excluded) |" in report
    assert "| Quarantined tasks | 1 left out |" in report
    assert 'id="quarantine"' in (tmp_path / "run" / "experiment.html").read_text(encoding="utf-8")
