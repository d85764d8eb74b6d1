"""The conformance sentiment suite on a scripted Claude Code: suite.json carries the classification metrics.

Per-row scripts play "a correct model" (r1 and r3 read positive, r2 negative). Against the
dataset's expected labels (r3 is deliberately mislabeled negative) that gives accuracy 2/3,
macro F1 2/3, recall.positive 1 and recall.negative 1/2 — the task's own threshold comment
(recall.positive = 1.0) agrees; its per-label comment has precision and recall swapped.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from clirun import cli
from tests_paths import conformance_dir

from coder_eval.agents.claude_code.options import bundled_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="the SDK-bundled Claude Code CLI is not installed"),
]

LABELS = {"r1": "positive", "r2": "negative", "r3": "positive"}


def test_suite_metrics_match_the_data(tmp_path: Path) -> None:
    source = conformance_dir() / "tasks"
    shutil.copy(source / "sentiment_classification.yaml", tmp_path / "sentiment.yaml")
    shutil.copytree(source / "datasets", tmp_path / "datasets")
    scripts = tmp_path / "scripts" / "sentiment-classification"
    scripts.mkdir(parents=True)
    for row, label in LABELS.items():
        (scripts / f"{row}.yaml").write_text(
            f"steps:\n  - write_file: {{path: result.txt, content: {label}}}\n  - reply: {label}\n"
        )
    run_dir = tmp_path / "run"
    proc = cli("run", "sentiment.yaml", "-b", "script", "-j", "3", "--run-dir", run_dir, cwd=tmp_path, timeout=300)
    suite = json.loads((run_dir / "default" / "sentiment-classification" / "suite.json").read_text())
    metrics = suite["criterion_aggregates"][0]["metrics"]
    assert suite["rows_total"] == 3 and suite["rows_passed"] == 2
    assert metrics["accuracy"] == pytest.approx(2 / 3)
    assert metrics["macro_f1"] == pytest.approx(2 / 3)
    assert metrics["recall.positive"] == pytest.approx(1.0)
    assert metrics["recall.negative"] == pytest.approx(0.5)
    assert metrics["precision.positive"] == pytest.approx(0.5)
    assert metrics["precision.negative"] == pytest.approx(1.0)
    assert suite["passed"] is True  # accuracy ≥ 0.6, macro_f1 ≥ 0.5, recall.positive ≥ 0.9
    assert (run_dir / "default" / "sentiment-classification" / "suite.md").is_file()
    assert proc.returncode == 1  # r3 fails its row criterion, so the run is not all green
