"""The composite GitHub Action, executed step by step with GitHub's environment files set.

`version: local` installs this checkout into a fresh virtual environment (the runner's Python),
then the steps run the example suite on the scripted model: a passing suite, a failing one,
the score floor and the `env` input's validation.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from action_runner import ActionRun, base_env, run_action

from coder_eval.agents.claude_code.options import bundled_cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "tasks"
UV = Path(sys.executable).with_name("uv")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def runner_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare venv standing in for actions/setup-python: the action installs coder-eval into it."""
    venv = tmp_path_factory.mktemp("runner") / "venv"
    subprocess.run([str(UV), "venv", "-q", str(venv), "--python", sys.executable], check=True, timeout=120)
    return venv / "bin"


def action(tmp_path: Path, runner_bin: Path, **inputs: str) -> ActionRun:
    # The venv's bin comes first (as setup-python's would); the dev venv's after it gives `uv`.
    env = base_env([runner_bin, Path(sys.executable).parent])
    return run_action(REPO, {"version": "local", **inputs}, cwd=tmp_path, env=env)


def junit_counts(path: Path) -> tuple[int, int]:
    root = ET.parse(path).getroot()
    return int(root.get("tests", 0)), int(root.get("failures", 0)) + int(root.get("errors", 0))


needs_cli = pytest.mark.skipif(bundled_cli() is None, reason="no bundled Claude Code CLI")


@needs_cli
def test_passing_suite_gives_outputs_junit_and_summary(tmp_path: Path, runner_python: Path) -> None:
    run = action(
        tmp_path,
        runner_python,
        tasks=f"{EXAMPLES}/*/task.yaml",
        **{"extra-args": "--exclude-tags example-fail -j 4", "env": "API_BACKEND=script\n# a comment\n"},
        **{"minimum-task-score": "0.9"},
    )
    assert not run.failed, run.log()
    assert run.outputs["exit-code"] == "0"
    assert run.outputs["tasks-run"] == "5" and run.outputs["tasks-succeeded"] == "5", run.outputs
    assert run.outputs["pass-rate"] == "1.0000"
    assert run.outputs["run-dir"] == "runs/ci" and (tmp_path / "runs/ci/run.json").is_file()
    junit = tmp_path / run.outputs["junit-path"]
    assert junit_counts(junit) == (5, 0)
    assert "word-count" in run.summary and "every scored task is at or above it" in run.summary
    # The `env` input reached the run step only, never a file later steps read.
    assert "API_BACKEND" not in (tmp_path / "step_2.sh").read_text(encoding="utf-8")


@needs_cli
def test_failing_suite_fails_the_step_after_writing_junit(tmp_path: Path, runner_python: Path) -> None:
    run = action(
        tmp_path,
        runner_python,
        tasks=f"{EXAMPLES}/*/task.yaml",
        tags="example-fail",
        env="API_BACKEND=script",
    )
    assert run.failed
    assert [s.returncode for s in run.steps] == [0, 0, 1], run.log()
    assert run.outputs["exit-code"] == "1" and run.outputs["tasks-failed"] == "1"
    assert junit_counts(tmp_path / "coder-eval-junit.xml") == (1, 1)
    assert "negative-weakened-test" in run.summary
    assert "coder-eval run exited 1" in run.steps[2].stdout


def none_task(root: Path, task_id: str, content: str) -> None:
    doc = {
        "task_id": task_id,
        "description": "agentless",
        "agent": {"type": "none"},
        "pre_run": [{"command": f"printf '{content}' > out.txt"}],
        "success_criteria": [
            {"type": "file_contains", "path": "out.txt", "includes": ["a"], "description": "a"},
            {"type": "file_contains", "path": "out.txt", "includes": ["b"], "description": "b"},
        ],
    }
    (root / f"{task_id}.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")


def test_score_floor_fails_a_run_that_coder_eval_passes(tmp_path: Path, runner_python: Path) -> None:
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    none_task(tasks, "both", "ab")
    partial = {
        "task_id": "partial",
        "description": "a continuous score that passes its own threshold",
        "agent": {"type": "none"},
        "success_criteria": [
            {
                "type": "run_command",
                "command": "echo 0.6",
                "score_from_stdout": True,
                "pass_threshold": 0.5,
                "description": "scores 0.6",
            }
        ],
    }
    (tasks / "partial.yaml").write_text(yaml.safe_dump(partial), encoding="utf-8")
    run = action(
        tmp_path,
        runner_python,
        tasks="tasks/*.yaml",
        **{"minimum-task-score": "0.75", "extra-args": "-D 'run_limits.max_turns=3'"},
    )
    assert run.outputs["exit-code"] == "0", run.log()
    assert run.outputs["tasks-succeeded"] == "2"
    assert run.failed and run.steps[2].returncode == 1
    assert "default/partial: score 0.600 < 0.750" in run.steps[2].stderr
    assert "1 below it" in run.summary


def test_env_input_rejects_a_line_that_is_not_name_value(tmp_path: Path, runner_python: Path) -> None:
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    none_task(tasks, "both", "ab")
    run = action(tmp_path, runner_python, tasks="tasks/*.yaml", env="GOOD=1\nnot a pair")
    assert run.failed
    assert "'not a pair' is not a NAME=VALUE line" in run.steps[1].stdout
    assert run.outputs["exit-code"] == "2"


def test_a_registry_version_is_refused_the_checkout_is_installed(tmp_path: Path, runner_python: Path) -> None:
    """The registry's `coder-eval` is another project: `version: latest` must not install it."""
    env = base_env([runner_python, Path(sys.executable).parent])
    run = run_action(REPO, {"version": "latest", "tasks": "none.yaml"}, cwd=tmp_path, env=env)
    assert run.failed and "installs Coder Eval only from its own checkout" in run.log()
    proof = subprocess.run(
        [str(runner_python / "python"), "-c", "import coder_eval, pathlib; print(pathlib.Path(coder_eval.__file__))"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if proof.returncode == 0:  # installed by an earlier test of this module: it must be this checkout's files
        installed = Path(proof.stdout.strip()).parent
        assert (installed / "engine" / "unit_checks.py").read_bytes() == (
            REPO / "src" / "coder_eval" / "engine" / "unit_checks.py"
        ).read_bytes()
