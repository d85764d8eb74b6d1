"""Up-front warnings: unpriced models before a run starts; a Claude Code login is not claimed as a credential."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from leftover_cli import REPO, run_cli


def test_unpriced_model_is_named_before_the_run(tmp_path: Path) -> None:
    doc = {
        "task_id": "priced",
        "description": "agentless, but pinned to a model the rate card lacks",
        "agent": {"type": "none", "model": "mystery-model-1"},
        "pre_run": [{"command": "echo hi > out.txt"}],
        "success_criteria": [{"type": "file_exists", "path": "out.txt", "description": "out"}],
    }
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    proc = run_cli("run", "t.yaml", "--run-dir", "r", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr  # never fatal
    assert "no price on the rate card for mystery-model-1" in proc.stderr
    proc = run_cli("run", "t.yaml", "--run-dir", "r2", "-b", "script", cwd=tmp_path)
    assert "rate card" not in proc.stderr  # scripted calls cost nothing


def test_a_claude_login_file_is_not_a_credential_but_its_oauth_token_is(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / ".credentials.json").write_text(json.dumps({"claudeAiOauth": {}}), encoding="utf-8")
    env = {"HOME": str(home), "ANTHROPIC_API_KEY": "", "AWS_BEARER_TOKEN_BEDROCK": "", "CLAUDE_CODE_OAUTH_TOKEN": ""}
    task = REPO / "tasks" / "hello_date.yaml"
    proc = run_cli("plan", task, cwd=tmp_path, env=env)
    assert proc.returncode == 1  # run would refuse: no credential for the default backend (direct)
    text = " ".join(proc.stdout.split())
    assert (
        "no credential for anthropic: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN" in text
    )
    assert "the Claude Code login in ~/.claude/.credentials.json is a file the gateway does not read" in text
    proc = run_cli("plan", task, "-b", "direct", cwd=tmp_path, env={**env, "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-x"})
    assert proc.returncode == 0, proc.stdout
    assert "key from $CLAUDE_CODE_OAUTH_TOKEN" in proc.stdout


def test_shipped_experiments_resolve_over_the_examples(tmp_path: Path) -> None:
    names = sorted(p.stem for p in (REPO / "experiments").glob("*.yaml"))
    assert {"model-comparison", "early-stop-ab", "prompt-phrasing", "plugin-comparison"} <= set(names)
    for name in names:
        proc = run_cli(
            "plan", "tasks/hello_date.yaml", "examples/tasks", "-e", name, "-b", "script", cwd=REPO,
            env={"PLUGIN_PATH": str(REPO / "plugins" / "coder-eval")},
        )  # fmt: skip
        assert proc.returncode == 0, f"{name}: {proc.stdout}{proc.stderr}"
