"""`report -f junit` from disk equals the live `--junit-xml`, suite gates and skipped tasks included."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import yaml
from leftover_cli import run_cli


def write_suite(root: Path) -> None:
    rows = [{"id": f"r{i}", "text": t, "expected": "yes"} for i, t in enumerate(["yes", "no", "yes"])]
    suite = {
        "task_id": "labels",
        "description": "a dataset with a gate it misses",
        "agent": {"type": "none"},
        "dataset": {"rows": rows},
        "pre_run": [{"command": "printf '${row.text}' > label.txt"}],
        "success_criteria": [
            {
                "type": "classification_match",
                "path": "label.txt",
                "expected_label": "${row.expected}",
                "allowed_labels": ["yes", "no"],
                "description": "label",
                "suite_thresholds": {"accuracy": 0.9},
            }
        ],
    }
    (root / "labels.yaml").write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    skipped = {
        "task_id": "quarantined",
        "description": "skipped",
        "skip": True,
        "agent": {"type": "none"},
        "success_criteria": [{"type": "file_exists", "path": "x", "description": "x"}],
    }
    (root / "quarantined.yaml").write_text(yaml.safe_dump(skipped), encoding="utf-8")


def test_report_junit_equals_live_junit(tmp_path: Path) -> None:
    write_suite(tmp_path)
    proc = run_cli("run", ".", "--run-dir", "r", "--junit-xml", "live.xml", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the accuracy gate fails
    proc = run_cli("report", "r", "-f", "junit", "-o", "disk.xml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    live = (tmp_path / "live.xml").read_text(encoding="utf-8")
    assert (tmp_path / "disk.xml").read_text(encoding="utf-8") == live
    suites = {s.get("name"): s for s in ET.fromstring(live).iter("testsuite")}
    assert set(suites) == {"default", "suite-gates", "skipped-tasks"}
    (gate,) = suites["suite-gates"].iter("testcase")
    assert gate.get("name") == "default/labels" and gate.find("failure") is not None
    (skip,) = suites["skipped-tasks"].iter("testcase")
    assert skip.get("name", "").endswith("quarantined.yaml") and skip.find("skipped") is not None


def test_suite_files_inside_preserved_workspaces_are_not_gates(tmp_path: Path) -> None:
    """Was: a suite.json anywhere under the run, an agent's workspace included, was read as a gate
    (and a malformed one failed the report)."""
    write_suite(tmp_path)
    proc = run_cli("run", ".", "--run-dir", "r", "--junit-xml", "live.xml", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    artifacts = sorted((tmp_path / "r").rglob("artifacts"))
    assert artifacts, "the workspaces were preserved"
    (artifacts[0] / "suite.json").write_text("not a rollup", encoding="utf-8")
    proc = run_cli("report", "r", "-f", "junit", "-o", "disk.xml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "disk.xml").read_text(encoding="utf-8") == (tmp_path / "live.xml").read_text(encoding="utf-8")
