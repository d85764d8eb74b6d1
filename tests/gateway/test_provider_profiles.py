"""Every built-in provider profile, through the real agent CLI that speaks its protocol, against a
loopback fake of that provider: the fake checks exactly what the provider's API expects (path, where
the credential goes, the version parameter, the model id as sent), then the run is recorded and
replayed offline with the fake gone.

The harness's environment holds the provider's variables (the base URL pointed at the fake) and a
providers.yaml where a profile needs one; the agent only ever sees its gateway route.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_providers import FakeProvider, Seen, fake_provider

from coder_eval.agents.registry import AGENTS
from coder_eval.gateway.script import ScriptedModel
from coder_eval.gateway.script_file import load_script
from coder_eval.gateway.server import GatewayThread

pytestmark = pytest.mark.slow

TIMEOUT = 300
PROVIDER_VARS = (
    "ANTHROPIC_", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "AWS_", "AZURE_", "OPENROUTER_", "LITELLM_",
    "CODER_EVAL_UPSTREAM_", "CLAUDE_CODE_", "API_BACKEND", "XDG_CONFIG_HOME",
)  # fmt: skip
SCRIPT = {"steps": [{"write_file": {"path": "hello.txt", "content": "hello\n"}}, {"reply": "Wrote hello.txt."}]}


@dataclass
class Case:
    id: str
    agent: str
    fake: str
    model: str | None
    env: Callable[[FakeProvider], dict[str, str]]
    check: Callable[[Seen], None]
    providers_yaml: dict[str, Any] | None = None
    backend: str = "record"
    agent_fields: dict[str, Any] = field(default_factory=dict)
    provider: str = ""
    """The provider each call is recorded under (default: the fake's profile)."""

    @property
    def expected_provider(self) -> str:
        return self.provider or {"azure": "azure-openai"}.get(self.fake, self.fake)


def _no(headers: dict[str, str], *names: str) -> None:
    for name in names:
        assert name not in headers, f"{name} reached the provider: {headers[name]!r}"


def _anthropic(seen: Seen) -> None:
    assert seen.path == "/v1/messages" and seen.headers["x-api-key"] == "sk-ant-fake"
    assert seen.headers.get("anthropic-version") and seen.model == "claude-sonnet-4-5"
    _no(seen.headers, "authorization")


def _oauth(seen: Seen) -> None:
    assert seen.path == "/v1/messages" and seen.headers["authorization"] == "Bearer sk-ant-oat01-fake"
    assert "oauth-2025-04-20" in seen.headers["anthropic-beta"].split(",")
    _no(seen.headers, "x-api-key")


def _codex_openai(seen: Seen) -> None:
    assert (
        seen.path == "/v1/responses" and seen.headers["authorization"] == "Bearer sk-codex-fake"
    )  # CODEX_API_KEY wins
    assert seen.model == "gpt-5-codex" and "api-version" not in seen.query


def _opencode_openai(seen: Seen) -> None:
    assert seen.path == "/v1/chat/completions" and seen.headers["authorization"] == "Bearer sk-openai-fake"
    assert seen.model == "gpt-5"  # "openai/" is OpenCode's provider prefix, not part of the id


def _azure_chat(seen: Seen) -> None:
    assert seen.path == "/openai/deployments/eval-gpt5/chat/completions"
    assert seen.query == {"api-version": "2024-10-21"} and seen.headers["api-key"] == "az-fake"
    _no(seen.headers, "authorization")


def _azure_codex(seen: Seen) -> None:  # the azure-openai profile: the Responses path, api-key, api-version
    assert seen.path == "/openai/responses" and seen.query == {"api-version": "2025-04-01-preview"}
    assert seen.headers["api-key"] == "az-fake" and seen.model == "my-deployment"
    _no(seen.headers, "authorization")


def _codex_own_endpoint(seen: Seen) -> None:  # Codex's own variables: CODEX_BASE_URL + CODEX_API_VERSION
    assert seen.path == "/openai/responses" and seen.query == {"api-version": "2025-04-01-preview"}
    assert seen.headers["authorization"] == "Bearer az-codex-fake" and seen.model == "my-deployment"


def _openrouter(seen: Seen) -> None:
    assert seen.path == "/api/v1/chat/completions" and seen.headers["authorization"] == "Bearer sk-or-fake"
    assert seen.model == "deepseek/deepseek-v4-pro"


def _google(seen: Seen) -> None:
    assert seen.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent"
    assert seen.headers["x-goog-api-key"] == "AIza-fake" and "key" not in seen.query
    _no(seen.headers, "authorization")


def _vertex(seen: Seen) -> None:
    where = "/v1/projects/eval-proj/locations/europe-west4/publishers/google/models/gemini-2.5-pro"
    assert seen.path == f"{where}:streamGenerateContent" and seen.headers["authorization"] == "Bearer ya29.fake"
    _no(seen.headers, "x-goog-api-key")


def _bedrock(seen: Seen) -> None:
    assert seen.path in (
        "/model/eu.anthropic.claude-sonnet-4-5/invoke-with-response-stream",
        "/model/eu.anthropic.claude-sonnet-4-5/invoke",
    ), seen.path  # the agent's bare id, qualified to the region's inference profile
    assert seen.headers["authorization"] == "Bearer bedrock-fake"
    assert seen.body["anthropic_version"] == "bedrock-2023-05-31" and "model" not in seen.body
    _no(seen.headers, "x-api-key", "anthropic-version")


def _litellm_anthropic(seen: Seen) -> None:
    assert seen.path == "/v1/messages" and seen.headers["authorization"] == "Bearer sk-litellm-fake"
    _no(seen.headers, "x-api-key")


def _litellm_codex(seen: Seen) -> None:
    assert seen.path == "/responses" and seen.headers["authorization"] == "Bearer sk-litellm-fake"


CASES = [
    Case("anthropic", "claude-code", "anthropic", "claude-sonnet-4-5",
         lambda f: {"ANTHROPIC_BASE_URL": f.origin, "ANTHROPIC_API_KEY": "sk-ant-fake"}, _anthropic),
    Case("anthropic-oauth", "claude-code", "anthropic", "claude-sonnet-4-5",
         lambda f: {"ANTHROPIC_BASE_URL": f.origin, "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-fake"}, _oauth),
    Case("openai-codex", "codex", "openai", "gpt-5-codex",
         lambda f: {"OPENAI_BASE_URL": f.origin + "/v1", "OPENAI_API_KEY": "sk-openai-fake",
                    "CODEX_API_KEY": "sk-codex-fake"},
         _codex_openai),
    Case("openai-opencode", "opencode", "openai", "openai/gpt-5",
         lambda f: {"OPENAI_BASE_URL": f.origin + "/v1", "OPENAI_API_KEY": "sk-openai-fake"}, _opencode_openai),
    Case("azure-opencode", "opencode", "azure", "azure/gpt-5",
         lambda f: {"AZURE_OPENAI_ENDPOINT": f.origin, "AZURE_OPENAI_API_KEY": "az-fake",
                    "OPENAI_API_VERSION": "2024-10-21"},
         _azure_chat, providers_yaml={"providers": {"azure-openai": {"deployments": {"gpt-5": "eval-gpt5"}}}}),
    Case("azure-codex", "codex", "azure", "azure/my-deployment",
         lambda f: {"AZURE_OPENAI_ENDPOINT": f.origin, "AZURE_OPENAI_API_KEY": "az-fake",
                    "OPENAI_API_VERSION": "2025-04-01-preview"}, _azure_codex),
    # Codex's documented endpoint variables override the OpenAI profile's endpoint (an Azure
    # resource here): the call is the openai profile's, sent where CODEX_BASE_URL says
    Case("codex-own-endpoint", "codex", "azure", "my-deployment",
         lambda f: {"CODEX_BASE_URL": f.origin + "/openai", "CODEX_API_VERSION": "2025-04-01-preview",
                    "CODEX_API_KEY": "az-codex-fake"}, _codex_own_endpoint, provider="openai"),
    Case("openrouter-pi", "pi", "openrouter", "openrouter/deepseek/deepseek-v4-pro",
         lambda f: {"OPENROUTER_BASE_URL": f.origin + "/api/v1", "OPENROUTER_API_KEY": "sk-or-fake"}, _openrouter),
    Case("google", "gemini-cli", "google", "gemini-2.5-pro",
         lambda f: {"GOOGLE_GEMINI_BASE_URL": f.origin, "GEMINI_API_KEY": "AIza-fake"}, _google),
    Case("vertex", "gemini-cli", "vertex", "gemini-2.5-pro",
         lambda f: {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "eval-proj",
                    "GOOGLE_CLOUD_LOCATION": "europe-west4", "GOOGLE_VERTEX_BASE_URL": f.origin,
                    "GOOGLE_CLOUD_ACCESS_TOKEN": "ya29.fake"}, _vertex),
    Case("bedrock", "claude-code", "bedrock", "claude-sonnet-4-5",
         lambda f: {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "eu-north-1",
                    "AWS_BEARER_TOKEN_BEDROCK": "bedrock-fake", "ANTHROPIC_BEDROCK_BASE_URL": f.origin}, _bedrock),
    Case("litellm-claude", "claude-code", "litellm", "claude-sonnet-4-5",
         lambda f: {"LITELLM_BASE_URL": f.origin, "LITELLM_AUTH_TOKEN": "sk-litellm-fake"}, _litellm_anthropic,
         providers_yaml={"defaults": {"anthropic": "litellm"}}),
    Case("litellm-codex", "codex", "litellm", "gpt-5-codex",
         lambda f: {"LITELLM_BASE_URL": f.origin, "LITELLM_AUTH_TOKEN": "sk-litellm-fake"}, _litellm_codex,
         providers_yaml={"defaults": {"openai_responses": "litellm"}}),
    # the backends themselves: -b bedrock and -b litellm choose the provider, in direct mode
    Case("backend-bedrock", "claude-code", "bedrock", "claude-sonnet-4-5",
         lambda f: {"AWS_REGION": "eu-north-1", "AWS_BEARER_TOKEN_BEDROCK": "bedrock-fake",
                    "ANTHROPIC_BEDROCK_BASE_URL": f.origin},
         _bedrock, backend="bedrock"),
    Case("backend-litellm", "claude-code", "litellm", "claude-sonnet-4-5",
         lambda f: {"LITELLM_BASE_URL": f.origin, "LITELLM_AUTH_TOKEN": "sk-litellm-fake"}, _litellm_anthropic,
         backend="litellm"),
]  # fmt: skip


def _require(kind: str) -> None:
    binary = AGENTS.get(kind).binary
    if binary is not None and binary.locate() is None:
        if os.environ.get("CI"):
            pytest.fail(f"{kind}: {binary.name} not installed ({binary.install})")
        pytest.skip(f"{kind}: {binary.name} not installed ({binary.install})")


def _task(root: Path, case: Case) -> Path:
    agent: dict[str, Any] = {"type": case.agent, "permission_mode": "acceptEdits", **case.agent_fields}
    if case.model:
        agent["model"] = case.model
    if case.agent == "claude-code":
        agent.update({"allowed_tools": ["Read", "Write", "Bash"], "setting_sources": []})
    doc = {
        "task_id": "hello",
        "description": f"provider {case.id}",
        "initial_prompt": "Write hello.txt containing hello.",
        "agent": agent,
        "success_criteria": [
            {"type": "file_contains", "path": "hello.txt", "includes": ["hello"], "description": "hi"}
        ],
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "task.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    (root / "task.script.yaml").write_text(yaml.safe_dump(SCRIPT, sort_keys=False))
    return root / "task.yaml"


def _run(root: Path, task: Path, run: str, *args: str, env: dict[str, str]) -> dict[str, Any]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(PROVIDER_VARS)}
    base["XDG_CONFIG_HOME"] = str(root / "config")
    cmd = [
        sys.executable,
        "-m",
        "coder_eval",
        "run",
        str(task),
        "--run-dir",
        run,
        "--preservation-mode",
        "DIRECT_WRITE",
    ]
    proc = subprocess.run([*cmd, *args], cwd=root, env={**base, **env}, capture_output=True, text=True, timeout=TIMEOUT)
    path = root / run / "default" / "hello" / "00" / "task.json"
    assert path.is_file(), proc.stdout + proc.stderr
    record: dict[str, Any] = json.loads(path.read_text())
    record["_output"] = proc.stdout + proc.stderr
    return record


def _trajectory(record: dict[str, Any]) -> list[tuple[str, str]]:
    ws = record["sandbox_path"]
    return [
        (c["tool_name"], json.dumps(c["parameters"], sort_keys=True).replace(ws, "<ws>"))
        for turn in record["iterations"]
        for c in turn["commands"]
    ]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_profile_sends_what_its_provider_expects_then_replays(case: Case, tmp_path: Path) -> None:
    _require(case.agent)
    task = _task(tmp_path, case)
    if case.providers_yaml is not None:
        (tmp_path / "config" / "coder-eval").mkdir(parents=True)
        (tmp_path / "config" / "coder-eval" / "providers.yaml").write_text(yaml.safe_dump(case.providers_yaml))
    tools = AGENTS.get(case.agent).tools
    with GatewayThread("script") as answers:
        route = answers.open_route(
            "answers", source=ScriptedModel(load_script(tmp_path / "task.script.yaml"), vocabulary=tools)
        )
        with fake_provider(case.fake, route.base_url) as fake:
            recorded = _run(tmp_path, task, "rec", "-b", case.backend, env=case.env(fake))
    assert recorded["final_status"] == "SUCCESS", recorded["_output"] + json.dumps(recorded.get("error_message"))
    model_calls = [s for s in fake.seen if s.method == "POST"]
    assert model_calls, "the provider saw no call"
    for seen in model_calls:
        case.check(seen)
    calls = [c for t in recorded["iterations"] for c in t["provider_call_costs"]]
    expected = case.expected_provider
    assert calls and {c["provider"] for c in calls} == {expected}, calls
    for secret in ("fake", "ya29"):
        assert secret not in json.dumps({k: v for k, v in recorded.items() if k != "_output"}), "a key in task.json"
    if case.backend != "record":
        return  # a backend run is direct: nothing to replay
    replayed = _run(tmp_path, task, "rep", "-b", "replay", "--cassettes", str(tmp_path / "rec" / "cassettes"), env={})
    assert replayed["final_status"] == "SUCCESS", replayed["_output"]
    assert _trajectory(replayed) == _trajectory(recorded)
    entries = sorted((tmp_path / "rec" / "cassettes").rglob("*.json"))
    assert entries and {json.loads(e.read_text())["provider"] for e in entries} == {expected}
