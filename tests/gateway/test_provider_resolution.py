"""Which provider a call resolves to, and the exact request the gateway builds for it (no network).

The slow end-to-end counterpart, through the real agent CLIs, is test_provider_profiles.py; these
cover the rules one by one: the order profiles are matched in, where a key comes from, what a
profile lacks, and the request each path style produces.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_providers import sse_to_eventstream

from coder_eval.engine.provider_config import read_providers_file
from coder_eval.errors import TaskConfigError
from coder_eval.gateway.bedrock_stream import EventStreamDecoder
from coder_eval.gateway.providers import ProviderSet, RouteHints, resolve
from coder_eval.gateway.upstream_request import OAUTH_BETA, UpstreamRequest, build
from coder_eval.models.providers import ProvidersConfig

CODEX = RouteHints("openai", ("CODEX_API_KEY",), ("CODEX_BASE_URL",), ("CODEX_API_VERSION",))


def _set(**layer: object) -> ProviderSet:
    return ProviderSet.build(ProvidersConfig.model_validate(layer)) if layer else ProviderSet.build()


@pytest.mark.parametrize(
    ("protocol", "model", "env", "provider"),
    [
        ("anthropic", "claude-sonnet-4-5", {}, "anthropic"),
        ("openai_chat", "openrouter/deepseek/deepseek-v4-pro", {}, "openrouter"),
        ("openai_chat", "azure/gpt-5", {}, "azure-openai"),
        ("openai_responses", "gpt-5-codex", {}, "openai"),
        ("gemini", "gemini-2.5-pro", {}, "google"),
        ("gemini", "gemini-2.5-pro", {"GOOGLE_GENAI_USE_VERTEXAI": "true"}, "vertex"),
        ("anthropic", "claude-sonnet-4-5", {"CLAUDE_CODE_USE_BEDROCK": "1"}, "bedrock"),
        ("anthropic", "claude-sonnet-4-5", {"CLAUDE_CODE_USE_BEDROCK": "0"}, "anthropic"),
        ("anthropic", "litellm/claude-sonnet-4-5", {}, "litellm"),
    ],
)
def test_a_call_lands_on_the_built_in_profile_that_claims_it(
    protocol: str, model: str, env: dict[str, str], provider: str
) -> None:
    assert resolve(_set(), protocol, model, env).provider == provider


def test_a_user_profile_claiming_a_model_beats_defaults_and_built_ins() -> None:
    providers = _set(
        providers={"corp": {"protocols": ["anthropic"], "base_url": "http://127.0.0.1:9", "models": ["claude-*"]}},
        defaults={"anthropic": "litellm"},
    )
    assert resolve(providers, "anthropic", "claude-sonnet-4-5", {}).provider == "corp"
    assert resolve(providers, "anthropic", "other-model", {}).provider == "litellm"  # the default next


def test_a_backend_default_beats_the_users_defaults() -> None:
    layer = ProvidersConfig.model_validate({"defaults": {"anthropic": "anthropic"}})
    providers = ProviderSet.build(layer, backend_defaults={"anthropic": "bedrock"})
    assert resolve(providers, "anthropic", "claude-sonnet-4-5", {}).provider == "bedrock"


def test_codex_variables_come_first_on_the_openai_profile_only() -> None:
    env = {"CODEX_API_KEY": "sk-codex", "OPENAI_API_KEY": "sk-openai", "OPENROUTER_API_KEY": "sk-or"}
    mine = resolve(_set(), "openai_responses", "gpt-5-codex", env, CODEX)
    assert (mine.key, mine.key_from) == ("sk-codex", "CODEX_API_KEY")
    other = resolve(_set(), "openai_responses", "openrouter/x/y", env, CODEX)
    assert (other.provider, other.key_from, other.upstream_model) == ("openrouter", "OPENROUTER_API_KEY", "x/y")


def test_a_claude_oauth_token_is_an_anthropic_credential_of_its_own_kind() -> None:
    res = resolve(_set(), "anthropic", "claude-sonnet-4-5", {"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-x"})
    assert (res.auth, res.key_from, res.problems) == ("oauth", "CLAUDE_CODE_OAUTH_TOKEN", ())
    key_wins = resolve(_set(), "anthropic", None, {"CLAUDE_CODE_OAUTH_TOKEN": "t", "ANTHROPIC_API_KEY": "k"})
    assert (key_wins.auth, key_wins.key) == ("x-api-key", "k")


@pytest.mark.parametrize(
    ("protocol", "model", "env", "problem"),
    [
        ("anthropic", None, {}, "no credential for anthropic: set ANTHROPIC_API_KEY or"),
        ("openai_chat", "azure/gpt-5", {"AZURE_OPENAI_API_KEY": "k"}, "azure-openai has no base URL"),
        (
            "openai_chat",
            "azure/gpt-5",
            {"AZURE_OPENAI_API_KEY": "k", "AZURE_OPENAI_ENDPOINT": "http://127.0.0.1:9"},
            "azure-openai needs an api-version: set OPENAI_API_VERSION",
        ),
        ("anthropic", "bedrock/claude-x", {"AWS_BEARER_TOKEN_BEDROCK": "t"}, "bedrock needs its region"),
        (
            "gemini",
            "vertex/gemini-2.5-pro",
            {"GOOGLE_CLOUD_ACCESS_TOKEN": "t", "GOOGLE_CLOUD_LOCATION": "us-central1"},
            "vertex needs its project",
        ),
        ("openai_chat", "litellm/gpt-5", {"LITELLM_API_KEY": "k"}, "litellm has no base URL"),
    ],
)
def test_what_a_profile_lacks_is_named_with_the_variable_to_set(
    protocol: str, model: str | None, env: dict[str, str], problem: str
) -> None:
    res = resolve(_set(), protocol, model, env)
    assert any(p.startswith(problem) for p in res.problems), res.problems
    assert problem in res.describe()


def test_bedrock_qualifies_a_bare_model_to_the_regions_inference_profile() -> None:
    env = {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "ap-northeast-1", "AWS_BEARER_TOKEN_BEDROCK": "t"}
    res = resolve(_set(), "anthropic", "claude-sonnet-4-5", env)
    assert res.upstream_model == "apac.anthropic.claude-sonnet-4-5"
    assert res.host == "bedrock-runtime.ap-northeast-1.amazonaws.com"
    assert (
        "sent as apac.anthropic.claude-sonnet-4-5" in res.describe() and "$AWS_BEARER_TOKEN_BEDROCK" in res.describe()
    )
    pinned = resolve(_set(), "anthropic", "us.anthropic.claude-sonnet-4-5", env)
    assert pinned.upstream_model == "us.anthropic.claude-sonnet-4-5"  # already a profile: kept


def test_vertex_fills_project_and_location_into_its_endpoint() -> None:
    env = {"GOOGLE_CLOUD_ACCESS_TOKEN": "t", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "europe-west4"}
    assert resolve(_set(), "gemini", "vertex/g", env).host == "europe-west4-aiplatform.googleapis.com"
    globally = resolve(_set(), "gemini", "vertex/g", {**env, "GOOGLE_CLOUD_LOCATION": "global"})
    assert globally.host == "aiplatform.googleapis.com" and globally.problems == ()


def test_a_user_profile_extending_a_built_in_keeps_what_it_does_not_change() -> None:
    providers = _set(
        providers={
            "eu-azure": {"extends": "azure-openai", "base_url": "http://127.0.0.1:9", "models": ["eu/*"]},
        }
    )
    res = resolve(providers, "openai_chat", "eu/gpt-5", {"AZURE_OPENAI_API_KEY": "k", "OPENAI_API_VERSION": "v1"})
    assert (res.provider, res.auth, res.api_version, res.problems) == ("eu-azure", "api-key", "v1", ())


def _request(
    res_env: dict[str, str], protocol: str, model: str, path: str, body: dict[str, object], **layer: object
) -> UpstreamRequest:
    res = resolve(_set(**layer), protocol, model, res_env)
    assert res.problems == (), res.problems
    headers = {"x-api-key": "route-token", "authorization": "Bearer route-token", "content-type": "application/json"}
    return build(
        res, path=path, query=[("key", "route-token")], headers=headers, body=body, raw=json.dumps(body).encode()
    )


def test_azure_chat_goes_under_its_deployment_with_api_version_and_api_key() -> None:
    env = {
        "AZURE_OPENAI_ENDPOINT": "https://res.example",
        "AZURE_OPENAI_API_KEY": "az",
        "OPENAI_API_VERSION": "2024-10-21",
    }
    req = _request(
        env,
        "openai_chat",
        "azure/gpt-5",
        "/v1/chat/completions",
        {"model": "azure/gpt-5", "messages": []},
        providers={"azure-openai": {"deployments": {"gpt-5": "eval-gpt5"}}},
    )
    assert req.url == "https://res.example/openai/deployments/eval-gpt5/chat/completions?api-version=2024-10-21"
    assert req.headers["api-key"] == "az" and "authorization" not in req.headers and "x-api-key" not in req.headers
    assert json.loads(req.body)["model"] == "eval-gpt5"


def test_the_agents_token_never_goes_upstream_and_the_key_goes_the_providers_way() -> None:
    google = _request(
        {"GEMINI_API_KEY": "AIza"}, "gemini", "gemini-2.5-pro", "/v1beta/models/gemini-2.5-pro:generateContent", {}
    )
    assert google.url.endswith("/v1beta/models/gemini-2.5-pro:generateContent")  # the route token's ?key= dropped
    assert google.headers["x-goog-api-key"] == "AIza" and "authorization" not in google.headers
    openai = _request({"OPENAI_API_KEY": "sk"}, "openai_responses", "gpt-5", "/v1/responses", {"model": "gpt-5"})
    assert openai.url.endswith("/v1/responses") and openai.headers["authorization"] == "Bearer sk"
    assert "route-token" not in json.dumps(openai.headers) + openai.url


def test_an_oauth_token_is_sent_as_bearer_with_the_oauth_beta_flag() -> None:
    res = resolve(_set(), "anthropic", "claude-sonnet-4-5", {"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-x"})
    headers = {"x-api-key": "route-token", "anthropic-beta": "fine-grained-tool-streaming-2025-05-14"}
    req = build(res, path="/v1/messages", query=[], headers=headers, body={"model": "claude-sonnet-4-5"}, raw=b"{}")
    assert req.headers["authorization"] == "Bearer sk-ant-oat01-x" and "x-api-key" not in req.headers
    assert req.headers["anthropic-beta"].split(",") == ["fine-grained-tool-streaming-2025-05-14", OAUTH_BETA]


def test_bedrock_names_the_model_in_the_path_and_takes_the_body_without_model_and_stream() -> None:
    env = {"AWS_REGION": "eu-west-1", "AWS_BEARER_TOKEN_BEDROCK": "bt", "CLAUDE_CODE_USE_BEDROCK": "1"}
    body = {"model": "claude-sonnet-4-5", "stream": True, "max_tokens": 5, "messages": []}
    res = resolve(_set(), "anthropic", "claude-sonnet-4-5", env)
    headers = {"anthropic-version": "2023-06-01", "anthropic-beta": "b1"}
    req = build(res, path="/v1/messages", query=[], headers=headers, body=body, raw=b"")
    assert (
        req.url
        == "https://bedrock-runtime.eu-west-1.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5/invoke-with-response-stream"
    )
    sent = json.loads(req.body)
    assert sent == {
        "max_tokens": 5,
        "messages": [],
        "anthropic_version": "bedrock-2023-05-31",
        "anthropic_beta": ["b1"],
    }
    assert req.bedrock_stream and req.headers["authorization"] == "Bearer bt" and "anthropic-version" not in req.headers


def test_a_bedrock_event_stream_becomes_the_anthropic_sse_stream_whatever_the_chunking() -> None:
    events = [{"type": "message_start", "message": {"id": "m"}}, {"type": "message_stop"}]
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    frames = sse_to_eventstream(sse)
    decoder = EventStreamDecoder()
    out = b"".join(decoder.feed(frames[i : i + 7]) for i in range(0, len(frames), 7))
    assert out == sse


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ("providers:\n  x:\n    key_env: [sk-ant-123]\n", "providers.x.key_env", "is not a variable name"),
        (
            "providers:\n  x:\n    base_url: https://u:p@h.example\n",
            "providers.x.base_url",
            "must not carry credentials",
        ),
        ("providers:\n  x:\n    protocols: [grpc]\n", "providers.x.protocols", "unknown wire protocol 'grpc'"),
        ("defaults:\n  smtp: anthropic\n", "", "unknown wire protocol 'smtp'"),
        ("providers:\n  x:\n    colour: blue\n", "providers.x.colour", "Extra inputs"),
    ],
)
def test_a_broken_providers_file_names_the_file_and_the_field(
    tmp_path: Path, text: str, field: str, message: str
) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text(text)
    with pytest.raises(TaskConfigError) as caught:
        read_providers_file(path)
    shown = str(caught.value)
    assert str(path) in shown and message in shown and field in shown, shown


def test_defaults_naming_no_profile_are_refused() -> None:
    with pytest.raises(ValueError, match="'nowhere', which is no provider profile"):
        _set(defaults={"anthropic": "nowhere"})
