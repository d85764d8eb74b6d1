"""`coder-eval plan` names the route of every judge and warns about none of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

TASK = {
    "task_id": "planned",
    "description": "judges in plan",
    "initial_prompt": "Write greet.py.",
    "agent": {"type": "claude-code"},
    "success_criteria": [
        {"type": "llm_judge", "description": "one call", "prompt": "Grade."},
        {"type": "agent_judge", "description": "an agent", "prompt": "Grade."},
        {
            "type": "system_one_judge",
            "description": "rubric",
            "prompt": "Grade.",
            "questions": {"q": {"type": "noul", "instructions": "ok?"}},
        },
    ],
}


def _plan(tmp_path: Path, backend: str, env_extra: dict[str, str] | None = None, **extra: object) -> str:
    task = tmp_path / "task.yaml"
    task.write_text(yaml.safe_dump({**TASK, **extra}, sort_keys=False))
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "AWS_BEARER_TOKEN_BEDROCK")}
    env["API_BACKEND"] = backend
    if backend == "script":  # run would refuse a task without its script under -b script
        (tmp_path / "task.script.yaml").write_text("final_reply: done\n")
    if backend == "direct":
        env["ANTHROPIC_API_KEY"] = "sk-placeholder"  # plan refuses -b direct without the agent's key
    env.update(env_extra or {})
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "plan", str(task)], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    ("backend", "served"),
    [("script", "answered by the task script's judges: section"), ("direct", "relayed to Anthropic")],
)
def test_each_judge_names_its_route(tmp_path: Path, backend: str, served: str) -> None:
    out = _plan(tmp_path, backend)
    lines = [line for line in out.splitlines() if "success_criteria[" in line]
    assert len(lines) == 3, out
    for line in lines:
        assert f"under -b {backend}" in line and "own judge route" in line and served in line
    assert "copy of the workspace" in lines[1]
    assert "not evaluated" not in out and "cannot grade" not in out


def test_bedrock_override_is_named(tmp_path: Path) -> None:
    aws = {"AWS_BEARER_TOKEN_BEDROCK": "placeholder", "AWS_REGION": "eu-north-1"}  # plan refuses a judge without them
    out = _plan(tmp_path, "direct", aws, checker_context={"api_route": {"route": "bedrock"}})
    agent_line = next(line for line in out.splitlines() if "agent_judge" in line)
    assert "Bedrock" in agent_line and "not through the gateway" in agent_line
