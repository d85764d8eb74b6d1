"""The request the gateway sends a provider for one call: URL, headers with the real credential, body.

What the agent sent is kept but for what is the agent's own: its placeholder key or route token
(in any of the headers providers read, or Gemini's `?key=`) is dropped, and the provider's
credential goes in the way that provider expects it:

| auth | sent as |
| --- | --- |
| `x-api-key` | `x-api-key: <key>` (Anthropic) |
| `bearer` | `Authorization: Bearer <key>` (OpenAI, OpenRouter, LiteLLM, Bedrock API keys, Vertex tokens) |
| `oauth` | `Authorization: Bearer <token>` plus the `oauth-2025-04-20` flag in `anthropic-beta` |
| `api-key` | `api-key: <key>` (Azure OpenAI) |
| `x-goog-api-key` / `query-key` | the header, or `?key=` (Google AI Studio) |

Paths: a base URL written as the provider's SDKs write it (`OPENAI_BASE_URL` ends in `/v1`) gets
the agent's path after that version segment; a pinned base (`CODER_EVAL_UPSTREAM_<PROTOCOL>`)
gets the whole path. Azure puts chat calls under the deployment and adds `api-version`; Vertex
AI puts the model under the project and location; Bedrock names the model in the path and takes
the Anthropic body without `model` and `stream`, answering a stream as AWS event-stream frames
(`bedrock_stream.py` turns them back into server-sent events).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from coder_eval.gateway.providers import Resolution

OAUTH_BETA = "oauth-2025-04-20"
BEDROCK_VERSION = "bedrock-2023-05-31"
SDK_VERSION_PREFIX = {"openai_chat": "/v1", "openai_responses": "/v1"}
"""The path segment a protocol's SDK base URL already ends with."""
AGENT_CREDENTIALS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})
_GEMINI_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/([^/:]+):(\w+)$")


@dataclass
class UpstreamRequest:
    url: str
    headers: dict[str, str]
    body: bytes
    bedrock_stream: bool = False
    """The answer comes as AWS event-stream frames, to be translated into SSE for the agent."""


def _auth(headers: dict[str, str], query: list[tuple[str, str]], res: Resolution) -> None:
    if not res.key:
        return
    if res.auth in ("bearer", "oauth"):
        headers["authorization"] = f"Bearer {res.key}"
    elif res.auth in ("x-api-key", "api-key", "x-goog-api-key"):
        headers[res.auth] = res.key
    elif res.auth == "query-key":
        query.append(("key", res.key))
    if res.auth == "oauth":
        betas = [b.strip() for b in headers.pop("anthropic-beta", "").split(",") if b.strip()]
        headers["anthropic-beta"] = ",".join(dict.fromkeys([*betas, OAUTH_BETA]))


def _relative(res: Resolution, path: str) -> str:
    """The agent's path below the provider's base URL."""
    if res.base_from.startswith("CODER_EVAL_UPSTREAM_") or res.base_from == "pinned":
        return path
    prefix = SDK_VERSION_PREFIX.get(res.protocol, "")
    return path[len(prefix) :] if prefix and path.startswith(prefix + "/") else path


def _path(res: Resolution, path: str, body: dict[str, Any] | None) -> tuple[str, bool]:
    """(path under the base URL, whether the answer is a Bedrock event stream)."""
    style = res.profile.path_style if res.profile is not None else "standard"
    model = res.upstream_model or ""
    if style == "azure":
        rel = _relative(res, path)
        if rel == "/chat/completions":
            rel = f"/deployments/{quote(model, safe='')}/chat/completions"
        return ("" if (res.base_url or "").rstrip("/").endswith("/openai") else "/openai") + rel, False
    gemini = _GEMINI_PATH.match(path)
    if style == "vertex" and gemini:
        where = f"/v1/projects/{res.project}/locations/{res.location or 'global'}/publishers/google/models"
        return f"{where}/{quote(model or gemini.group(1), safe='')}:{gemini.group(2)}", False
    if style == "bedrock":
        stream = bool(body and body.get("stream"))
        verb = "invoke-with-response-stream" if stream else "invoke"
        return f"/model/{quote(model, safe='')}/{verb}", stream
    if gemini and model and model != gemini.group(1):
        path = path.replace(f"/models/{gemini.group(1)}:", f"/models/{quote(model, safe='')}:", 1)
    return _relative(res, path), False


def _body(res: Resolution, headers: dict[str, str], body: dict[str, Any] | None, raw: bytes) -> bytes:
    style = res.profile.path_style if res.profile is not None else "standard"
    if body is None:
        return raw
    if style == "bedrock":
        out = {k: v for k, v in body.items() if k not in ("model", "stream")}
        out["anthropic_version"] = BEDROCK_VERSION
        betas = [b.strip() for b in headers.pop("anthropic-beta", "").split(",") if b.strip()]
        if betas:
            out["anthropic_beta"] = betas
        headers.pop("anthropic-version", None)
        return json.dumps(out).encode()
    if "model" in body and res.upstream_model and body.get("model") != res.upstream_model:
        return json.dumps({**body, "model": res.upstream_model}).encode()
    return raw


def build(
    res: Resolution,
    *,
    path: str,
    query: list[tuple[str, str]],
    headers: dict[str, str],
    body: dict[str, Any] | None,
    raw: bytes,
) -> UpstreamRequest:
    """The upstream request for a call (`headers` without per-hop ones, `query` as the agent sent it)."""
    assert res.base_url is not None
    out = {k.lower(): v for k, v in headers.items() if k.lower() not in AGENT_CREDENTIALS}
    params = [(k, v) for k, v in query if k != "key"]
    profile = res.profile
    if profile is not None:
        out.update({k.lower(): v for k, v in profile.headers.items()})
        params += list(profile.query.items())
    out.update({k.lower(): v for k, v in res.extra_headers})
    if res.api_version and not any(k == "api-version" for k, _ in params):
        params.append(("api-version", res.api_version))
    data = _body(res, out, body, raw)
    rel, stream = _path(res, path, body)
    _auth(out, params, res)
    url = res.base_url.rstrip("/") + rel + (f"?{urlencode(params)}" if params else "")
    return UpstreamRequest(url, out, data, stream)
