"""`plan` names the route of every unit (provider, endpoint host, model as sent, where the key comes
from) from the user's providers.yaml and the experiment's `providers:`, and refuses a unit whose
provider has no usable credential; nothing is called."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

PROVIDER_VARS = (
    "ANTHROPIC_", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "AWS_", "AZURE_", "OPENROUTER_", "LITELLM_",
    "CODER_EVAL_UPSTREAM_", "CLAUDE_CODE_", "API_BACKEND",
)  # fmt: skip
TASK = {
    "task_id": "routed",
    "description": "routes in plan",
    "initial_prompt": "Write hello.txt.",
    "agent": {"type": "claude-code"},
    "success_criteria": [{"type": "file_exists", "path": "hello.txt", "description": "file"}],
}
EXPERIMENT = {
    "experiment_id": "routes",
    "variants": [
        {"variant_id": "claude", "agent": {"type": "claude-code", "model": "claude-sonnet-4-5"}},
        {"variant_id": "pi-or", "agent": {"type": "pi", "model": "openrouter/deepseek/deepseek-v4-pro"}},
        {"variant_id": "codex-corp", "agent": {"type": "codex", "model": "corp/fast"}},
    ],
    "providers": {
        "providers": {
            "corp": {
                "protocols": ["openai_responses"],
                "base_url_env": ["CORP_LLM_URL"],
                "key_env": ["CORP_LLM_KEY"],
                "model_map": {"corp/fast": "gpt-5-mini"},
                "models": ["corp/*"],
            }
        }
    },
}


def _plan(tmp_path: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    (tmp_path / "task.yaml").write_text(yaml.safe_dump(TASK, sort_keys=False))
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(EXPERIMENT, sort_keys=False))
    base = {k: v for k, v in os.environ.items() if not k.startswith(PROVIDER_VARS)}
    base.update({"XDG_CONFIG_HOME": str(tmp_path / "config"), "COLUMNS": "250", "NO_COLOR": "1"})
    cmd = [sys.executable, "-m", "coder_eval", "plan", str(tmp_path / "task.yaml"), *args]
    return subprocess.run(cmd, cwd=tmp_path, env={**base, **env}, capture_output=True, text=True, timeout=120)


def test_each_unit_names_its_route_and_a_unit_without_a_key_is_refused(tmp_path: Path) -> None:
    env = {
        "ANTHROPIC_API_KEY": "sk-ant-plan",
        "OPENROUTER_API_KEY": "sk-or-plan",
        "CORP_LLM_URL": "http://127.0.0.1:9/v1",
    }
    proc = _plan(tmp_path, "-e", str(tmp_path / "exp.yaml"), "-b", "direct", env=env)
    out = " ".join(proc.stdout.split())
    assert "anthropic -> anthropic at api.anthropic.com, model claude-sonnet-4-5, key from $ANTHROPIC_API_KEY" in out
    assert (
        "openai_chat -> openrouter at openrouter.ai, model openrouter/deepseek/deepseek-v4-pro "
        "sent as deepseek/deepseek-v4-pro, key from $OPENROUTER_API_KEY" in out
    )
    assert "openai_responses -> corp at 127.0.0.1:9, model corp/fast sent as gpt-5-mini, NO KEY" in out
    assert "no credential for corp: set CODEX_API_KEY or CORP_LLM_KEY" not in out  # hints are openai's only
    assert "no credential for corp: set CORP_LLM_KEY" in out
    assert proc.returncode == 1, proc.stdout + proc.stderr
    proc = _plan(tmp_path, "-e", str(tmp_path / "exp.yaml"), "-b", "direct", env={**env, "CORP_LLM_KEY": "k"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "key from $CORP_LLM_KEY" in proc.stdout


def test_litellm_and_bedrock_backends_route_through_their_profiles(tmp_path: Path) -> None:
    refused = _plan(tmp_path, "-b", "litellm", env={"LITELLM_API_KEY": "k"})
    assert refused.returncode == 1
    assert "litellm has no base URL: set LITELLM_BASE_URL or LITELLM_PROXY_URL" in " ".join(refused.stdout.split())
    proc = _plan(tmp_path, "-b", "litellm", env={"LITELLM_API_KEY": "k", "LITELLM_BASE_URL": "http://127.0.0.1:4000"})
    assert proc.returncode == 0 and "anthropic -> litellm at 127.0.0.1:4000" in proc.stdout, proc.stdout
    bedrock = _plan(
        tmp_path,
        "-b",
        "bedrock",
        "-D",
        "agent.model=claude-sonnet-4-5",
        env={"AWS_REGION": "us-east-2", "AWS_BEARER_TOKEN_BEDROCK": "t"},
    )
    assert bedrock.returncode == 0, bedrock.stdout + bedrock.stderr
    text = " ".join(bedrock.stdout.split())
    assert "bedrock at bedrock-runtime.us-east-2.amazonaws.com, model claude-sonnet-4-5" in text
    assert "sent as us.anthropic.claude-sonnet-4-5" in text


def test_a_broken_user_providers_file_is_one_clear_error(tmp_path: Path) -> None:
    where = tmp_path / "config" / "coder-eval"
    where.mkdir(parents=True)
    (where / "providers.yaml").write_text("providers:\n  mine:\n    key_env: [sk-live-123]\n")
    proc = _plan(tmp_path, "-b", "direct", env={"ANTHROPIC_API_KEY": "k"})
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in text
    assert "providers.yaml" in text and "is not a variable name" in text, text
