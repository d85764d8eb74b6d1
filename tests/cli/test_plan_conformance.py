"""Every conformance task passes `plan`, except those that need a plugin this install lacks."""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import cli

from coder_eval.engine.validation import plan

pytestmark = pytest.mark.slow

NEEDS_PLUGIN = {"fizzbuzz_delegate.yaml", "hello_date_delegate.yaml"}  # agent type `delegate` (out-of-tree)


def test_every_conformance_task_validates(conformance: Path):
    report = plan([str(conformance / "tasks")])
    assert len(report.files) >= 50
    for f in report.files:
        if f.path.name in NEEDS_PLUGIN:
            assert f.error is not None
            assert "unknown agent type 'delegate'" in f.error.render()
            assert "plugin" in f.error.render()
        else:
            assert f.error is None, f.error.render() if f.error else ""


def test_plan_cli_exit_codes(tmp_path: Path, conformance: Path):
    key = {"ANTHROPIC_API_KEY": "sk-placeholder", "API_BACKEND": ""}  # -b direct needs the key to be set
    good = cli("plan", conformance / "tasks" / "hello_date.yaml", cwd=tmp_path, env=key)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "1 of 1 task files valid" in good.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "task_id: bad\ndescription: d\ninitial_prompt: p\n"
        "success_criteria:\n  - type: file_contains\n    path: a\n    inclues: [x]\n    description: d\n"
    )
    proc = cli("plan", bad, cwd=tmp_path)
    assert proc.returncode == 1
    assert "success_criteria[0].inclues (line 7)" in proc.stdout
    assert "did you mean 'includes'?" in proc.stdout


def test_plan_fails_like_run_on_a_missing_credential(tmp_path: Path, conformance: Path):
    """`run` refuses -b direct without the agent's key, so `plan` does too, naming the variable and the fix."""
    task = conformance / "tasks" / "agents" / "codex_hello_world.yaml"
    env = {"OPENAI_API_KEY": "", "CODEX_API_KEY": "", "API_BACKEND": ""}
    proc = cli("plan", task, "-b", "direct", cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "OPENAI_API_KEY" in proc.stdout and "-b script" in proc.stdout
    assert "0 of 1 task files valid" in proc.stdout
    run = cli("run", task, "-b", "direct", "--run-dir", tmp_path / "run", cwd=tmp_path, env=env)
    assert run.returncode == 2 and "OPENAI_API_KEY" in run.stderr
    assert not (tmp_path / "run").exists()


def test_schema_is_valid_json_schema_and_accepts_conformance_tasks(tmp_path: Path, conformance: Path):
    import json

    import jsonschema
    import yaml

    proc = cli("schema", cwd=tmp_path)
    assert proc.returncode == 0
    schema = json.loads(proc.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for name in ("hello_date.yaml", "sentiment_classification.yaml", "record_cli_responses.yaml"):
        doc = yaml.safe_load((conformance / "tasks" / name).read_text())
        errors = list(validator.iter_errors(doc))
        assert not errors, [e.message for e in errors[:3]]
    assert list(validator.iter_errors({"task_id": "x", "bogus": 1}))
