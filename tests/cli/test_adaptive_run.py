"""`--repeats auto` end to end: rounds, early stops, the spent-vs-fixed figures, resume and refusals.

Most suites here use the `none` agent with a starter file deciding each arm's outcome, so every
replicate's result (and so every round and stop) is known in advance; one runs the real Claude
Code CLI on the scripted model, whose `replicates:` entry makes one replicate differ.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from clirun import BIN, cli

from coder_eval.agents.claude_code.options import bundled_cli
from coder_eval.board.api import BoardApi
from coder_eval.board.catalog import RunCatalog

pytestmark = pytest.mark.slow

TASKS = ["alpha", "beta", "gamma", "delta", "epsilon"]
HELLO = [{"type": "starter_files", "files": [{"path": "out.txt", "content": "hello"}]}]


def write_suite(root: Path, *, b_fixes: bool, experiment: dict[str, Any] | None = None, pause: float = 0.0) -> None:
    """Five agentless tasks that pass when out.txt says hello; arm B's starter file says it (if asked)."""
    (root / "tasks").mkdir()
    for name in TASKS:
        task: dict[str, Any] = {
            "task_id": name,
            "description": f"{name} needs out.txt",
            "agent": {"type": "none"},
            "success_criteria": [
                {"type": "file_contains", "path": "out.txt", "includes": ["hello"], "description": "says hello"}
            ],
        }
        if pause:
            task["pre_run"] = [{"command": f"sleep {pause}"}]
        (root / "tasks" / f"{name}.yaml").write_text(yaml.safe_dump(task), encoding="utf-8")
    (root / "experiments").mkdir()
    body = {
        "experiment_id": "ab",
        "variants": [{"variant_id": "arm-a"}, {"variant_id": "arm-b", "template_sources": HELLO if b_fixes else []}],
        **(experiment or {}),
    }
    (root / "experiments" / "ab.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def records(run_dir: Path) -> list[Path]:
    """Every task.json of both arms (a fixed depth: the run's scratch sandboxes come and go meanwhile)."""
    return [p for arm in ("arm-a", "arm-b") for p in (run_dir / arm).glob("*/*/task.json")]


def replicate_dirs(run_dir: Path, arm: str, task: str) -> list[str]:
    return sorted(p.name for p in (run_dir / arm / task).iterdir() if p.is_dir())


def test_a_clear_winner_stops_after_the_first_round(tmp_path: Path) -> None:
    write_suite(tmp_path, b_fixes=True)
    run_dir = tmp_path / "run"
    proc = cli(
        "run", "tasks", "-e", "ab", "--repeats", "auto", "--max-repeats", "8", "-j", "2", "--run-dir", run_dir,
        cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr  # arm A fails by design
    assert "adaptive replicates: 20 of 80 units (fixed design: 8 replicates × 5 tasks × 2 arms), 75% saved" in (
        proc.stdout
    )
    assert "the comparison was decided after round 1: better" in proc.stdout
    assert "arm-b better than arm-a on 5 of 5 tasks" in proc.stdout and "sequential e-value" in proc.stdout
    assert all(replicate_dirs(run_dir, arm, t) == ["00", "01"] for arm in ("arm-a", "arm-b") for t in TASKS)
    record = read(run_dir / "adaptive.json")
    assert (record["rounds"], record["units_spent"], record["units_fixed_design"], record["finished"]) == (
        1,
        20,
        80,
        True,
    )
    assert {t["rule"] for t in record["tasks"]} == {"verdict"} and record["e_better"] >= record["bar"] == 40
    experiment = read(run_dir / "experiment.json")
    assert experiment["adaptive"]["units_spent"] == 20 and experiment["adaptive"]["saving"] == pytest.approx(0.75)
    summary = read(run_dir / "run.json")
    assert (summary["units_planned"], summary["units_finished"], summary["units_fixed_design"]) == (20, 20, 80)
    assert summary["interrupted"] is False
    report = (run_dir / "experiment.md").read_text(encoding="utf-8")
    assert "## Adaptive replicates" in report and "20 of 80 units" in report
    rebuilt = cli("aggregate", run_dir, "-o", tmp_path / "rebuilt", cwd=tmp_path)  # keeps the fixed design
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert read(tmp_path / "rebuilt" / "run.json")["units_fixed_design"] == 80
    board = BoardApi(RunCatalog([tmp_path])).get("runs/run/experiment")  # the board's experiment page
    spent = dict(board["adaptive"]["summary"])["Units spent"]
    assert spent.startswith("20 of 80 units") and board["adaptive"]["units_fixed_design"] == 80
    assert {row[5] for row in board["adaptive"]["tasks"]} == {"verdict"}
    [comparison] = board["comparisons"]
    assert comparison["sequential"]["e_better"] >= comparison["sequential"]["bar"] == 40
    assert "| alpha | 2 | 2 | +1.000 |" in report and "| verdict | 1 |" in report
    assert "Sequential e-values (arm-b better / arm-a better)" in report
    assert "Adaptive replicates" in (run_dir / "experiment.html").read_text(encoding="utf-8")
    assert "20 units run of the fixed design's 80 (75% saved)" in (run_dir / "run.md").read_text(encoding="utf-8")


def test_experiment_file_sets_auto_and_identical_arms_stop_as_futile(tmp_path: Path) -> None:
    """Ties on every replicate: after round 2 no hidden difference could be shown in the pairs left."""
    write_suite(tmp_path, b_fixes=False, experiment={"repeats": "auto", "adaptive": {"max_repeats": 6}})
    run_dir = tmp_path / "run"
    plan = cli("plan", "tasks", "-e", "ab", cwd=tmp_path)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert "adaptive replicates: a first round of 2 per task and arm" in plan.stdout
    assert "at most 60 units, the fixed design" in plan.stdout
    proc = cli("run", "tasks", "-e", "ab", "-j", "2", "--run-dir", run_dir, cwd=tmp_path, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    record = read(run_dir / "adaptive.json")
    assert (record["rounds"], record["units_spent"], record["units_fixed_design"]) == (2, 30, 60)
    assert {(t["rule"], t["replicates"], t["stopped_after_round"]) for t in record["tasks"]} == {("futile", 3, 2)}
    assert replicate_dirs(run_dir, "arm-b", "gamma") == ["00", "01", "02"]
    assert "No difference between arm-a and arm-b" in proc.stdout
    assert "more replicates were futile after round 2" in proc.stdout


def test_an_interrupted_adaptive_run_resumes_the_same_rounds(tmp_path: Path) -> None:
    write_suite(tmp_path, b_fixes=False, experiment={"repeats": "auto", "adaptive": {"max_repeats": 6}}, pause=0.25)
    run_dir = tmp_path / "run"
    args = [str(BIN), "run", "tasks", "-e", "ab", "-j", "2", "--run-dir", str(run_dir)]
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while len(records(run_dir)) < 6 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGINT)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode != 0, output
    before = {p: p.stat().st_mtime_ns for p in records(run_dir)}
    assert 6 <= len(before) < 30
    assert read(run_dir / "adaptive.json")["finished"] is False

    changed = cli(
        "run", "tasks", "-e", "ab", "--max-repeats", "7", "--run-dir", run_dir, "--resume", cwd=tmp_path
    )  # fmt: skip
    assert changed.returncode == 2 and "max_repeats 6 → 7" in changed.stdout + changed.stderr
    fixed = cli("run", "tasks", "-e", "ab", "--repeats", "3", "--run-dir", run_dir, "--resume", cwd=tmp_path)
    assert fixed.returncode == 2 and "is an adaptive run" in fixed.stdout + fixed.stderr

    resumed = cli("run", "tasks", "-e", "ab", "-j", "2", "--run-dir", run_dir, "--resume", cwd=tmp_path, timeout=300)
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    record = read(run_dir / "adaptive.json")
    assert (record["rounds"], record["units_spent"], record["finished"]) == (2, 30, True)
    assert {t["rule"] for t in record["tasks"]} == {"futile"}
    assert all(p.stat().st_mtime_ns == mtime for p, mtime in before.items())  # finished units never rerun
    assert len(records(run_dir)) == 30
    summary = read(run_dir / "run.json")
    assert (summary["tasks_run"], summary["units_planned"], summary["interrupted"]) == (30, 30, False)


def test_refusals_say_what_to_do(tmp_path: Path) -> None:
    write_suite(tmp_path, b_fixes=True)
    one_arm = cli("run", "tasks", "--repeats", "auto", cwd=tmp_path)
    assert one_arm.returncode == 2 and "compares two arms" in one_arm.stdout + one_arm.stderr
    stray = cli("run", "tasks", "-e", "ab", "--max-repeats", "5", cwd=tmp_path)
    assert stray.returncode == 2 and "need --repeats auto" in stray.stdout + stray.stderr
    word = cli("run", "tasks", "-e", "ab", "--repeats", "lots", cwd=tmp_path)
    assert word.returncode == 2 and "whole number of at least 1 or `auto`" in word.stdout + word.stderr
    ungraded = cli("execute", "tasks", "-e", "ab", "--repeats", "auto", cwd=tmp_path)
    assert ungraded.returncode == 2 and "execute grades nothing" in ungraded.stdout + ungraded.stderr
    experiment = {
        "experiment_id": "ab",
        "defaults": {"repeats": "auto"},
        "variants": [{"variant_id": "arm-a", "repeats": 3}, {"variant_id": "arm-b"}],
    }
    (tmp_path / "experiments" / "ab.yaml").write_text(yaml.safe_dump(experiment), encoding="utf-8")
    own = cli("run", "tasks", "-e", "ab", cwd=tmp_path)
    assert own.returncode == 2 and "cannot set its own repeats" in own.stdout + own.stderr
    assert not list(tmp_path.glob("runs/**/task.json"))  # nothing ran


@pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here")
def test_claude_code_on_the_scripted_model_stops_a_decided_task(tmp_path: Path) -> None:
    """One task, Claude Code on the scripted model. The script copies hint.txt to out.txt; arm
    `hinted` gets the right hint, arm `plain` a wrong one, and replicate 2 writes the right answer
    in both. Paired differences 1, 1, 0, 1, 1, 1, 1, 1: the task's confidence sequence leaves zero
    at the eighth pair, two short of the cap of 10."""
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
    right = [{"write_file": {"path": "out.txt", "content": "forty-two\n"}}, {"reply": "Done."}]
    script = {"steps": [{"run_command": "cp hint.txt out.txt"}, {"reply": "Done."}], "replicates": {2: right}}
    (tmp_path / "answer.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
    (tmp_path / "answer.script.yaml").write_text(yaml.safe_dump(script, sort_keys=False), encoding="utf-8")

    def hint(text: str) -> list[dict[str, Any]]:
        return [{"type": "starter_files", "files": [{"path": "hint.txt", "content": text}]}]

    experiment = {
        "experiment_id": "hint",
        "variants": [
            {"variant_id": "plain", "template_sources": hint("seven\n")},
            {"variant_id": "hinted", "template_sources": hint("forty-two\n")},
        ],
    }
    (tmp_path / "hint.yaml").write_text(yaml.safe_dump(experiment), encoding="utf-8")
    run_dir = tmp_path / "run"
    proc = cli(
        "run", "answer.yaml", "-e", "hint.yaml", "-b", "script", "--repeats", "auto", "--max-repeats", "10",
        "-j", "2", "--run-dir", run_dir, cwd=tmp_path, timeout=600, env={"API_BACKEND": ""},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    record = read(run_dir / "adaptive.json")
    (only,) = record["tasks"]
    assert (only["rule"], only["replicates"], only["pairs"]) == ("decided", 8, 8)
    assert only["detail"].startswith("B is better on this task") and only["low"] > 0
    assert (record["units_spent"], record["units_fixed_design"]) == (16, 20)
    statuses = [read(run_dir / "plain" / "answer" / f"{i:02d}" / "task.json")["final_status"] for i in range(8)]
    assert statuses == ["FAILURE", "FAILURE", "SUCCESS", *["FAILURE"] * 5]
    assert "16 of 20 units" in proc.stdout and "every task stopped by its own rule after round 7" in proc.stdout
