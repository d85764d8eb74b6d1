"""A plugin written from the reference system's extending guide alone runs end to end through the CLI.

The fixture (tests/fixtures/guide_plugin) was written from shared/spec/extending.md before the
compatibility layer existed; it is installed through its `coder_eval.plugins` entry point into a
throwaway venv, and a task using its agent kind, its criterion type and its model prices is
planned, run and graded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow

PLUGIN = Path(__file__).resolve().parents[1] / "fixtures" / "guide_plugin"


@pytest.fixture(scope="module")
def plugin_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv that sees this environment's packages plus the installed guide plugin."""
    venv = tmp_path_factory.mktemp("guide-plugin-venv") / "venv"
    uv = Path(sys.executable).with_name("uv")
    subprocess.run([str(uv), "venv", "-q", "--python", sys.executable, str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(site, "coder_eval_host.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    subprocess.run(
        [str(uv), "pip", "install", "-q", "--no-deps", "--python", str(python), str(PLUGIN)], check=True, timeout=300
    )
    return python


def _task(tmp_path: Path, **agent: object) -> Path:
    task = tmp_path / "task.yaml"
    task.write_text(
        yaml.safe_dump(
            {
                "task_id": "guide-plugin",
                "description": "agent, criterion and prices from a plugin written to the reference guide",
                "initial_prompt": "write three lines",
                "agent": {
                    "type": "guide-shell",
                    "model": "guide-model-v1",
                    "commands": ["printf 'one\\ntwo\\nthree\\n' > lines.txt", "wc -l lines.txt"],
                    "reported_input_tokens": 1000,
                    "reported_output_tokens": 500,
                    **agent,
                },
                "success_criteria": [
                    {"type": "guide_line_count", "path": "lines.txt", "min_lines": 3, "description": "three lines"},
                    {"type": "command_executed", "tool_name": "Bash", "min_count": 2, "description": "two calls"},
                ],
            }
        )
    )
    return task


def _cli(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "coder_eval", *args], capture_output=True, text=True, timeout=180, cwd=cwd
    )


def test_guide_plugin_plans_and_joins_the_schema(plugin_python: Path, tmp_path: Path) -> None:
    plan = _cli(plugin_python, "plan", str(_task(tmp_path)), cwd=tmp_path)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert "agent guide-shell" in plan.stdout
    schema = _cli(plugin_python, "schema", cwd=tmp_path)
    assert schema.returncode == 0 and '"guide_line_count"' in schema.stdout and '"guide-shell"' in schema.stdout


def test_guide_plugin_runs_end_to_end(plugin_python: Path, tmp_path: Path) -> None:
    run = _cli(plugin_python, "run", str(_task(tmp_path)), "--run-dir", str(tmp_path / "r"), cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    record = json.loads(next((tmp_path / "r").rglob("task.json")).read_text())
    assert record["agent_type"] == "guide-shell" and record["final_status"] == "SUCCESS"
    results = {r["criterion_type"]: r for r in record["success_criteria_results"]}
    assert results["guide_line_count"]["score"] == 1.0
    assert "has 3 lines" in results["guide_line_count"]["details"]
    assert results["guide_line_count"]["pass_threshold"] == 0.9  # filled from the spec, not the plugin
    (turn,) = record["iterations"]
    assert [c["tool_name"] for c in turn["commands"]] == ["Bash", "Bash"]
    assert turn["commands"][1]["result_summary"].strip().startswith("3")
    assert turn["user_input"] == "write three lines" and turn["iteration"] == 1
    # the plugin's rates price its model: (1000 * 3.0 + 500 * 15.0) / 1e6
    assert record["total_token_usage"]["total_cost_usd"] == pytest.approx(0.0105)
    assert record["environment_info"]["agent_spi"] == "reference"
    summary = json.loads((tmp_path / "r" / "run.json").read_text())
    assert summary["agent_cost_usd"] == pytest.approx(0.0105)


def test_guide_plugin_crash_keeps_the_partial_turn(plugin_python: Path, tmp_path: Path) -> None:
    task = _task(tmp_path, fail_with="the tool server went away")
    run = _cli(plugin_python, "run", str(task), "--run-dir", str(tmp_path / "r"), cwd=tmp_path)
    assert run.returncode != 0
    record = json.loads(next((tmp_path / "r").rglob("task.json")).read_text())
    assert record["final_status"] == "ERROR"
    assert "the tool server went away" in record["error_message"]
    (turn,) = record["iterations"]
    assert turn["crashed"] is True and len(turn["commands"]) == 2  # what it did before failing is kept
