"""A third-party agent registers through the coder_eval.plugins entry point, with no edit to the package."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow

PLUGIN = Path(__file__).resolve().parents[1] / "fixtures" / "demo_agent_plugin"


@pytest.fixture(scope="module")
def plugin_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A throwaway venv that sees this environment's packages plus the installed demo plugin."""
    venv = tmp_path_factory.mktemp("plugin-venv") / "venv"
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


def test_plugin_agent_is_known_and_runs(plugin_python: Path, tmp_path: Path) -> None:
    task = tmp_path / "task.yaml"
    task.write_text(
        yaml.safe_dump(
            {
                "task_id": "plugin-demo",
                "description": "run by a plugin agent",
                "initial_prompt": "write it",
                "agent": {"type": "demo-script", "command": "printf hi > hi.txt", "input_tokens": 10},
                "success_criteria": [
                    {"type": "file_contains", "path": "hi.txt", "includes": ["hi"], "description": "hi"},
                    {"type": "command_executed", "tool_name": "Bash", "description": "used Bash"},
                ],
            }
        )
    )
    plan = subprocess.run(
        [str(plugin_python), "-m", "coder_eval", "plan", str(task)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert "agent demo-script" in plan.stdout
    run = subprocess.run(
        [str(plugin_python), "-m", "coder_eval", "run", str(task), "--run-dir", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    record = json.loads(next((tmp_path / "r").rglob("task.json")).read_text())
    assert record["agent_type"] == "demo-script" and record["final_status"] == "SUCCESS"


def test_plugin_agent_criterion_and_driver_work_together(plugin_python: Path, tmp_path: Path) -> None:
    """One task uses the plugin's agent kind, criterion type and sandbox driver: plan, schema, run, grade."""
    task = tmp_path / "task.yaml"
    task.write_text(
        yaml.safe_dump(
            {
                "task_id": "plugin-trio",
                "description": "agent, criterion and driver all from the plugin",
                "initial_prompt": "write five words",
                "sandbox": {"driver": "demo-nested"},
                "agent": {
                    "type": "demo-script",
                    "command": 'printf "one two three four five" > words.txt; printf "$DEMO_DRIVER" > driver.txt',
                    "model": "demo-model",
                    "input_tokens": 1000,
                },
                "success_criteria": [
                    {"type": "demo_word_count", "path": "words.txt", "min_words": 5, "description": "five words"},
                    {
                        "type": "file_contains",
                        "path": "driver.txt",
                        "includes": ["demo-nested"],
                        "description": "ran under the plugin's driver",
                    },
                ],
            }
        )
    )
    run_cli = [str(plugin_python), "-m", "coder_eval"]
    plan = subprocess.run([*run_cli, "plan", str(task)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    schema = subprocess.run([*run_cli, "schema"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert schema.returncode == 0 and '"demo_word_count"' in schema.stdout
    run = subprocess.run(
        [*run_cli, "run", str(task), "--run-dir", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    record = json.loads(next((tmp_path / "r").rglob("task.json")).read_text())
    assert record["final_status"] == "SUCCESS"
    kinds = [c["criterion_type"] for c in record["success_criteria_results"]]
    assert kinds == ["demo_word_count", "file_contains"]
    assert record["success_criteria_results"][0]["details"] == "5 words (need 5)"
    assert record["total_token_usage"]["total_cost_usd"] == 0.001  # the plugin's price for demo-model
    assert not list((tmp_path / "r").glob(".sandboxes/demo-nested-*")), "the driver dropped its scratch root"


def test_plugin_is_unknown_without_the_install(tmp_path: Path) -> None:
    task = tmp_path / "task.yaml"
    task.write_text(
        "task_id: t\ndescription: d\ninitial_prompt: p\nagent: {type: demo-script}\n"
        "success_criteria: [{type: file_exists, path: a, description: a}]\n"
    )
    plan = subprocess.run(
        [sys.executable, "-m", "coder_eval", "plan", str(task)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert plan.returncode == 1 and "unknown agent type 'demo-script'" in plan.stdout


def test_broken_third_party_plugin_is_skipped(plugin_python: Path, tmp_path: Path) -> None:
    site = subprocess.run(
        [str(plugin_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    dist = Path(site) / "broken_plugin-0.1.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[coder_eval.plugins]\nbroken = no_such_module:register\n")
    try:
        proc = subprocess.run(
            [str(plugin_python), "-m", "coder_eval", "plan", "--help"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert proc.returncode == 0
        task = tmp_path / "task.yaml"
        task.write_text(
            "task_id: t\ndescription: d\nagent: {type: none}\n"
            "success_criteria: [{type: file_exists, path: a, description: a}]\n"
        )
        plan = subprocess.run(
            [str(plugin_python), "-m", "coder_eval", "plan", str(task)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert plan.returncode == 0, plan.stdout + plan.stderr
    finally:
        for f in dist.iterdir():
            f.unlink()
        dist.rmdir()
