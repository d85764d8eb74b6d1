"""Conformance tasks that use judges, early stop or a simulated user, run under `-b script`.

Each task is copied from ../shared/conformance into a temp directory (never into the project)
together with a script written here, and must end with the status its comments predict.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from judge_e2e import task_json

from coder_eval.agents.claude_code.options import bundled_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="no bundled Claude Code CLI"),
]

RETRY = '''def fetch_with_retry(url, attempts=3):
    """Fetch url as JSON, retrying on timeouts; raises RuntimeError when every attempt fails."""
    for attempt in range(attempts):
        try:
            return requests.get(url, timeout=5).json()
        except requests.Timeout:
            time.sleep(2 ** attempt)
    raise RuntimeError("all attempts failed")
'''

SCRIPTS: dict[str, tuple[dict[str, Any], str]] = {
    "smoke_llm_judge.yaml": (
        {
            "steps": [{"write_file": {"path": "poem.txt", "content": "Python is neat\nPython is fun"}}],
            "judges": [{"criterion": 1, "verdict": {"score": 1.0, "rationale": "two lines, mentions Python"}}],
        },
        "SUCCESS",
    ),
    "smoke_agent_judge.yaml": (
        {
            "steps": [
                {
                    "write_file": {
                        "path": "greet.py",
                        "content": 'def greet(name: str) -> str:\n    return f"Hello, {name}!"\n',
                    }
                },
                {"reply": "Wrote greet.py."},
            ],
            "judges": [{"criterion": 1, "verdict": {"score": 1.0, "rationale": "one def, f-string return"}}],
        },
        "SUCCESS",
    ),
    "smoke_system_one_judge.yaml": (
        {
            "steps": [{"write_file": {"path": "retry.py", "content": RETRY}}, {"reply": "Wrote fetch_with_retry."}],
            "judges": [
                {
                    "criterion": "Rubric grade of the retry helper.",
                    "answers": {
                        "retries": {"answer": True, "confidence": 0.9},
                        "raises_on_exhaustion": {"answer": True},
                        "leftovers": {"answer": False},
                        "exception_handling": {"answer": "specific_timeout"},
                        "backoff": {"answer": "exponential"},
                        "documentation": {"answer": "states the behaviour and the failure mode"},
                        "efficient_trajectory": {"answer": True},
                        "summary_is_honest": {"answer": True},
                    },
                }
            ],
        },
        "SUCCESS",
    ),
    "python_cli_simulated_judged/echo_simulated_judged.yaml": (
        {
            "steps": [
                {"reply": "What would you like me to do?"},
                {"reply": "hello, world -- uipath is the best company in the world."},
            ],
            "simulator": [
                'Repeat this as-is without anything else: "hello, world -- uipath is the best company in the world."',
                "<<<END>>>",
            ],
            "judges": [{"criterion": 0, "verdict": {"score": 1.0, "rationale": "verbatim"}}],
        },
        "SUCCESS",
    ),
    "early_stop_weighted_high_weight_kills_run.yaml": (
        {
            "steps": [
                {"run_command": "echo curl -sI https://example.com"},
                {"write_file": {"path": "app.py", "content": "print('Hello, Claude!')\n"}},
                {"run_command": "python3 app.py"},
                {"run_command": "ls"},
            ]
        },
        "FAILURE",
    ),
    "early_stop_weighted_low_weight_absorbed.yaml": (
        {
            "steps": [
                {"run_command": "echo curl"},
                {"write_file": {"path": "app.py", "content": "print('Hello, Claude!')\n"}},
                {"run_command": "python3 app.py"},
                {"run_command": "ls"},
            ]
        },
        "SUCCESS",
    ),
    "early_stop_decision_budget_exceeded.yaml": (
        {"steps": [{"run_command": "ls"}, {"run_command": "ls -la"}, {"run_command": "pwd"}, {"run_command": "ls"}]},
        "FAILURE",
    ),
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_conformance_task_under_script(name: str, conformance: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    source = conformance / "tasks" / name
    doc = yaml.safe_load(source.read_text())
    doc.setdefault("sandbox", {})["driver"] = "tempdir"
    doc["sandbox"].pop("python", None)  # no uv environment needed for these checks
    for crit in doc["success_criteria"]:  # the scripted agent runs `python3` where only that exists
        if crit.get("command_pattern") == r"python app\.py":
            crit["command_pattern"] = r"python3? app\.py"
    task = tmp_path / Path(name).name
    task.write_text(yaml.safe_dump(doc, sort_keys=False))
    script, expected = SCRIPTS[name]
    task.with_suffix(".script.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "run", str(task), "-b", "script", "--run-dir", "run"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    record = task_json(tmp_path / "run", doc["task_id"])
    assert record["final_status"] == expected, f"{record.get('error_message')}\n{proc.stdout[-2000:]}"
    if name.startswith("early_stop"):
        assert record["early_stop"] is not None
    shutil.rmtree(tmp_path / "run", ignore_errors=True)
