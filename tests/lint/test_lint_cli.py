"""`coder-eval lint` through the CLI: the runs catch a task that cannot fail and one that cannot pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("API_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "coder_eval", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


STARTER = {"template_sources": [{"type": "starter_files", "files": [{"path": "notes.txt", "content": "hello\n"}]}]}


def write(root: Path, name: str, doc: dict[str, Any], reference: dict[str, str] | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    if reference is not None:
        doc = {**doc, "reference": {"directory": "reference"}}
        for rel, content in reference.items():
            (folder / "reference" / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / "reference" / rel).write_text(content, encoding="utf-8")
    path = folder / "task.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def task(task_id: str, criteria: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "description": task_id,
        "initial_prompt": "Write the summary of notes.txt to summary.txt.",
        "agent": {"type": "claude-code"},
        "success_criteria": criteria,
        **extra,
    }


def lint_json(cwd: Path, *args: str) -> tuple[int, dict[str, Any]]:
    proc = cli("lint", *args, "-f", "json", cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def rules(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {(f["rule_id"], f["task_id"]) for f in report["findings"]}


def test_task_that_cannot_fail_is_an_error(tmp_path: Path) -> None:
    write(
        tmp_path,
        "always",
        task(
            "always-passes",
            [{"type": "file_contains", "path": "notes.txt", "includes": ["hello"], "description": "greets"}],
            sandbox=STARTER,
        ),
    )
    code, report = lint_json(tmp_path, "always")
    assert code == 1
    (hit,) = [f for f in report["findings"] if f["rule_id"] == "CE201"]
    assert hit["severity"] == "error" and hit["task_id"] == "always-passes" and "SUCCEEDED" in hit["message"]
    assert hit["file"].endswith("always/task.yaml") and hit["line"] > 1


def test_task_that_cannot_pass_is_an_error(tmp_path: Path) -> None:
    write(
        tmp_path,
        "never",
        task(
            "never-passes",
            [
                {"type": "file_exists", "path": "summary.txt", "description": "written"},
                {"type": "file_contains", "path": "summary.txt", "includes": ["GOODBYE"], "description": "says bye"},
            ],
        ),
        reference={"summary.txt": "hello, a summary\n"},
    )
    code, report = lint_json(tmp_path, "never")
    assert code == 1
    (hit,) = [f for f in report["findings"] if f["rule_id"] == "CE202"]
    assert "'says bye' scored 0.00" in hit["message"] and "reference copied" in hit["message"]
    assert ("CE201", "never-passes") not in rules(report)


def test_a_sound_task_lints_clean_and_trajectory_criteria_do_not_count_against_the_oracle(tmp_path: Path) -> None:
    write(
        tmp_path,
        "sound",
        task(
            "sound",
            [
                {"type": "run_command", "command": "grep -q summary summary.txt", "description": "summarised"},
                {"type": "command_executed", "command_pattern": "cat", "description": "read it"},
            ],
        ),
        reference={"summary.txt": "a summary\n"},
    )
    code, report = lint_json(tmp_path, "sound")
    assert (code, report["counts"]["error"], report["counts"]["warning"]) == (0, 0, 0), report


@pytest.mark.slow
def test_the_examples_lint_clean_with_both_oracles() -> None:
    for extra in ((), ("--agent-oracle",)):
        proc = cli("lint", "examples/tasks", "-f", "json", *extra, cwd=REPO, timeout=300)
        report = json.loads(proc.stdout)
        assert proc.returncode == 0 and report["counts"]["error"] == 0, proc.stdout + proc.stderr
        assert report["tasks_checked"] == 6


def test_sarif_output_names_rules_and_locations(tmp_path: Path) -> None:
    write(
        tmp_path,
        "empty",
        task(
            "only-exists",
            [{"type": "file_exists", "path": "summary.txt", "description": "written"}],
        ),
    )
    proc = cli("lint", "empty", "-f", "sarif", "--static", "-o", "out.sarif", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    (result,) = run["results"]
    assert result["ruleId"] == "CE103" and rule_ids[result["ruleIndex"]] == "CE103"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "empty/task.yaml" and location["region"]["startLine"] >= 1


def test_invalid_task_file_exits_2_and_still_lints_the_rest(tmp_path: Path) -> None:
    write(tmp_path, "ok", task("ok", [{"type": "file_exists", "path": "a", "description": "a"}]))
    (tmp_path / "bad.yaml").write_text("task_id: bad\n", encoding="utf-8")
    proc = cli("lint", ".", "--static", cwd=tmp_path)
    assert proc.returncode == 2
    assert "bad.yaml" in proc.stderr and "CE103" in proc.stdout
