"""A claude plugin eval suite and a skill-creator suite, run end to end through the CLI on the scripted
model by claude-code, codex and gemini-cli: every agent earns the same grades, criterion by criterion.

The plugin suite is run as it is (`coder-eval run PLUGIN_DIR`), so the import, its experiment and the
arms are those of a user's run; the skill suite is imported, then run with its experiment. Each
case's script (task.script.yaml beside the case, evals/scripts/<id>.yaml for the skill) is what the
scripted model plays, its judges included, so no key or network is needed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from cli_agents import require_binary
from clirun import cli

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PLUGIN = FIXTURES / "plugin_eval" / "greeter"
SKILL = FIXTURES / "skill_evals" / "plugin" / "skills" / "tidy-notes"
KINDS = ("claude-code", "codex", "gemini-cli")

Grades = dict[tuple[str, str], list[tuple[str, float, str]]]


def grades(run_dir: Path) -> Grades:
    """(arm, task) -> each criterion's (description, score, evaluation status) and the unit's status."""
    out: Grades = {}
    for path in sorted(run_dir.glob("*/*/*/task.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        rows = [(c["description"], c["score"], c["evaluation_status"]) for c in record["success_criteria_results"]]
        out[(record["variant_id"], record["task_id"])] = [*rows, ("status", 0.0, record["final_status"])]
    return out


def run_kind(kind: str, tmp: Path, *args: str | Path, units: int, exit_code: int) -> Grades:
    if kind != "claude-code":
        require_binary(kind)
    run_dir = tmp / f"run-{kind}"
    argv = ("-b", "script", "-T", kind, "--repeats", "1", "-j", "2", "--run-dir", run_dir)
    done = cli("run", *args, *argv, cwd=tmp, timeout=600)
    assert done.returncode == exit_code, done.stdout[-3000:] + done.stderr[-3000:]
    found = grades(run_dir)
    assert len(found) == units, found  # every case in both arms
    return found


def test_plugin_eval_suite_grades_alike_on_every_agent(tmp_path: Path) -> None:
    results = {kind: run_kind(kind, tmp_path, PLUGIN, units=6, exit_code=1) for kind in KINDS}
    baseline = results["claude-code"]
    statuses = {key: rows[-1][2] for key, rows in baseline.items()}
    assert statuses == {(arm, task): "FAILURE" if task == "negatives" else "SUCCESS" for arm, task in baseline}
    for kind, found in results.items():
        assert found == baseline, kind
    greet = dict((d, s) for d, s, _ in baseline[("with-plugin", "write-greeting")])
    assert greet["skill-fired: tool Skill used (with-only indicator, not scored)"] == 1.0
    assert (tmp_path / "run-claude-code" / "suite" / "experiment.yaml").is_file()  # the import is kept with the run


def test_skill_evals_suite_grades_alike_on_every_agent(tmp_path: Path) -> None:
    done = cli("import", "skill-evals", SKILL, "-o", tmp_path / "suite", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    suite, experiment = tmp_path / "suite", tmp_path / "suite" / "experiment.yaml"
    results = {kind: run_kind(kind, tmp_path, suite, "-e", experiment, units=4, exit_code=0) for kind in KINDS}
    baseline = results["claude-code"]
    for kind, found in results.items():
        assert found == baseline, kind
    tidy = dict((d.split(":")[0], s) for d, s, _ in baseline[("with-skill", "tidy-basic")])
    assert tidy == {f"expectation {i}": 1.0 for i in range(1, 7)} | {"status": 0.0}
