"""The real Claude Code CLI loads the plugin and its skills, on the scripted model.

Four skills the model may reach on its own: the scripted model calls the Skill tool for each,
Claude Code launches it, and `skill_triggered` passes. `init` and `ci` are explicit-only
(`disable-model-invocation`): Claude Code refuses them through the Skill tool, and the user's
`/coder-eval:init` loads the skill's instructions into the model's request, measured as the
request growing by the skill's size against the same prompt without the slash.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.agents.claude_code.options import bundled_cli

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "plugins" / "coder-eval"
MODEL_INVOKED = ("task", "lint-tasks", "analyze", "check-skill")
EXPLICIT_ONLY = ("init", "ci")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here"),
]


def write_task(root: Path, task_id: str, prompt: str, skills: tuple[str, ...], steps: list[Any]) -> None:
    doc = {
        "task_id": task_id,
        "description": f"plugin: {task_id}",
        "initial_prompt": prompt,
        "agent": {
            "type": "claude-code",
            "permission_mode": "acceptEdits",
            "setting_sources": [],
            "allowed_tools": ["Skill", "Read", "Glob", "Grep"],
            "plugins": [{"type": "local", "path": str(PLUGIN)}],
        },
        "success_criteria": [
            {"type": "skill_triggered", "skill_name": s, "expected_skill": s, "description": s} for s in skills
        ]
        # A slash command is no Skill call: the criterion expects none.
        or [{"type": "skill_triggered", "skill_name": "init", "expected_skill": "", "description": "no call"}],
    }
    (root / f"{task_id}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    script = {"steps": [*steps, {"reply": "done"}]}
    (root / f"{task_id}.script.yaml").write_text(yaml.safe_dump(script), encoding="utf-8")


def record(run_dir: Path, task_id: str) -> dict[str, Any]:
    return json.loads((run_dir / "default" / task_id / "00" / "task.json").read_text(encoding="utf-8"))


def request_tokens(result: dict[str, Any]) -> int:
    assistant = [m for m in result["iterations"][0]["messages"] if m["role"] == "assistant"]
    return int(assistant[0]["token_usage"]["uncached_input_tokens"])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugin")
    steps = [{"invoke_skill": {"name": f"coder-eval:{s}"}} for s in (*MODEL_INVOKED, *EXPLICIT_ONLY)]
    write_task(root, "skill-tool", "Use the coder-eval skills.", MODEL_INVOKED + EXPLICIT_ONLY, steps)
    for skill in EXPLICIT_ONLY:
        write_task(root, f"slash-{skill}", f"/coder-eval:{skill}", (), [])
        write_task(root, f"plain-{skill}", f"xcoder-eval:{skill}", (), [])
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("API_BACKEND", None)
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "run", str(root), "-b", "script", "-j", "5", "--run-dir", "run"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (root / "run" / "run.json").is_file(), proc.stdout + proc.stderr
    return root / "run"


def test_model_invocable_skills_launch_and_trigger(run_dir: Path) -> None:
    result = record(run_dir, "skill-tool")
    calls = {c["parameters"]["skill"]: c for c in result["iterations"][0]["commands"] if c["tool_name"] == "Skill"}
    criteria = {r["description"]: r for r in result["success_criteria_results"]}
    for skill in MODEL_INVOKED:
        call = calls[f"coder-eval:{skill}"]
        assert call["status"] == "success", call
        assert f"Launching skill: coder-eval:{skill}" in call["result_summary"]
        assert criteria[skill]["score"] == 1.0 and criteria[skill]["observed_label"] == "yes"


def test_explicit_only_skills_are_refused_to_the_model(run_dir: Path) -> None:
    calls = {c["parameters"]["skill"]: c for c in record(run_dir, "skill-tool")["iterations"][0]["commands"]}
    for skill in EXPLICIT_ONLY:
        call = calls[f"coder-eval:{skill}"]
        assert call["status"] == "error" and "disable-model-invocation" in call["result_summary"], call


def test_slash_command_loads_an_explicit_only_skill(run_dir: Path) -> None:
    for skill in EXPLICIT_ONLY:
        body = (PLUGIN / "skills" / skill / "SKILL.md").read_text(encoding="utf-8").split("---", 2)[2]
        grown = request_tokens(record(run_dir, f"slash-{skill}")) - request_tokens(record(run_dir, f"plain-{skill}"))
        # The scripted model counts about four characters a token.
        assert grown >= 0.8 * len(body) / 4, (skill, grown, len(body))
