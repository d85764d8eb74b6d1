"""How a judge or the simulator reaches its model: one Messages-style call, three transports.

- `MessagesHttp`: the Anthropic Messages API over HTTP. Pointed at a gateway route (the usual
  case: the call is attributed, priced, budgeted, recorded and scriptable) or, when the run has
  no gateway (`-b bedrock` runs with `route: direct`), at the provider with the operator's key.
- `BedrockHttp`: Bedrock's invoke endpoint with the bearer token (`AWS_BEARER_TOKEN_BEDROCK`).
- `LiteLLMCall`: `litellm.completion` (the optional `litellm` extra), for `route: litellm`.

Each returns a `ModelAnswer` (text, tool calls, usage); failures raise `JudgeCallError`, and a
transport that cannot work here at all (no key, extra not installed) raises `JudgeUnavailableError`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Protocol

from coder_eval.judges.model_ids import bedrock_model_id, direct_model_id
from coder_eval.models.providers import public_endpoint
from coder_eval.pricing import calculate_cost

ANTHROPIC_VERSION = "2023-06-01"
BEDROCK_VERSION = "bedrock-2023-05-31"


class JudgeCallError(Exception):
    """The model call failed (HTTP error, timeout, unreadable answer)."""


class JudgeUnavailableError(Exception):
    """This transport cannot run here (missing credential or optional extra)."""


@dataclass(frozen=True)
class ForcedTool:
    """The tool the model must call, and its argument schema."""

    name: str
    description: str
    schema: dict[str, Any]


@dataclass
class ModelCall:
    """One request: system prompt, conversation, optional forced tool, sampling and a time limit."""

    model: str
    system: str
    messages: list[dict[str, str]]
    tool: ForcedTool | None = None
    max_tokens: int = 2000
    temperature: float = 0.0
    timeout: float = 300.0


@dataclass
class ModelAnswer:
    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    model: str = ""


class Transport(Protocol):
    @property
    def name(self) -> str:
        """How the call travels, for environment_info and `plan` (e.g. `gateway`)."""
        ...

    def call(self, request: ModelCall) -> ModelAnswer: ...


def _anthropic_body(request: ModelCall, model: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "system": request.system,
        "messages": [{"role": m["role"], "content": m["content"]} for m in request.messages],
    }
    if request.tool is not None:
        body["tools"] = [
            {"name": request.tool.name, "description": request.tool.description, "input_schema": request.tool.schema}
        ]
        body["tool_choice"] = {"type": "tool", "name": request.tool.name}
    return body


def _parse_anthropic(data: dict[str, Any], model: str) -> ModelAnswer:
    answer = ModelAnswer(model=str(data.get("model") or model))
    for block in data.get("content") or []:
        if block.get("type") == "text":
            answer.text += str(block.get("text", ""))
        elif block.get("type") == "tool_use":
            args = block.get("input")
            answer.tool_calls.append((str(block.get("name")), args if isinstance(args, dict) else {}))
    usage = data.get("usage") or {}
    answer.input_tokens = int(usage.get("input_tokens") or 0) + int(usage.get("cache_read_input_tokens") or 0)
    answer.output_tokens = int(usage.get("output_tokens") or 0)
    return answer


def _post_json(url: str, body: dict[str, Any], headers: dict[str, str], timeout: float) -> dict[str, Any]:
    import urllib.error  # the HTTP client's imports are paid only by a run that calls a judge
    import urllib.request

    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            parsed = json.loads(resp.read().decode("utf-8", "replace"))
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace")[:300]
        raise JudgeCallError(f"model call failed: HTTP {exc.code}: {detail}") from None
    except TimeoutError:
        raise JudgeCallError(f"model call timed out after {timeout:g}s") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise JudgeCallError(f"model call timed out after {timeout:g}s") from None
        raise JudgeCallError(f"model call failed: {reason}") from None
    except json.JSONDecodeError as exc:
        raise JudgeCallError(f"model answer is not JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise JudgeCallError("model answer is not a JSON object")
    return parsed


@dataclass
class MessagesHttp:
    """The Anthropic Messages API at `base_url` (a gateway route, or the provider itself)."""

    base_url: str
    api_key: str
    name: str = "gateway"
    priced_here: bool = False
    """True when no gateway prices the call, so the transport prices it from the rate card."""
    timeout_cap: float | None = None
    """A limit of the endpoint's own (a judge's timeout_seconds) below the request's, when set."""

    def call(self, request: ModelCall) -> ModelAnswer:
        model = direct_model_id(request.model)
        headers = {"x-api-key": self.api_key, "anthropic-version": ANTHROPIC_VERSION}
        url = self.base_url.rstrip("/") + "/v1/messages"
        timeout = min(request.timeout, self.timeout_cap) if self.timeout_cap is not None else request.timeout
        answer = _parse_anthropic(_post_json(url, _anthropic_body(request, model), headers, timeout), model)
        if self.priced_here:
            answer.cost_usd = calculate_cost(answer.model, answer.input_tokens, answer.output_tokens)
        return answer


@dataclass
class BedrockHttp:
    """Bedrock's invoke endpoint with a bearer token (no gateway: priced from the rate card)."""

    region: str
    token: str
    name: str = "bedrock"
    endpoint: str | None = None
    """The Bedrock runtime endpoint (default: AWS's for the region; AWS_ENDPOINT_URL_BEDROCK_RUNTIME overrides)."""

    @classmethod
    def from_env(cls) -> BedrockHttp:
        token, region = os.environ.get("AWS_BEARER_TOKEN_BEDROCK"), os.environ.get("AWS_REGION")
        if not token or not region:
            raise JudgeUnavailableError("the bedrock judge route needs AWS_BEARER_TOKEN_BEDROCK and AWS_REGION set")
        return cls(region, token, endpoint=os.environ.get("AWS_ENDPOINT_URL_BEDROCK_RUNTIME") or None)

    def call(self, request: ModelCall) -> ModelAnswer:
        model = bedrock_model_id(request.model, self.region)
        body = _anthropic_body(request, model)
        body.pop("model")
        body["anthropic_version"] = BEDROCK_VERSION
        base = (self.endpoint or public_endpoint("bedrock").format(region=self.region)).rstrip("/")
        url = f"{base}/model/{model}/invoke"
        headers = {"authorization": f"Bearer {self.token}"}
        answer = _parse_anthropic(_post_json(url, body, headers, request.timeout), model)
        answer.cost_usd = calculate_cost(model, answer.input_tokens, answer.output_tokens)
        return answer


@dataclass
class LiteLLMCall:
    """`litellm.completion` with the route's literal params and env-named params (llm_judge only)."""

    model: str
    params: dict[str, Any]
    env_params: dict[str, str]
    name: str = "litellm"

    def call(self, request: ModelCall) -> ModelAnswer:
        try:
            import litellm  # type: ignore[import-not-found]
        except ImportError:
            raise JudgeUnavailableError(
                "checker_context.api_route.route: litellm needs the litellm extra (pip install 'coder-eval[litellm]')"
            ) from None
        kwargs: dict[str, Any] = dict(self.params)
        for key, var in self.env_params.items():
            if var not in os.environ:
                raise JudgeUnavailableError(
                    f"checker_context.api_route.env_params.{key} names ${var}, which is not set"
                )
            kwargs[key] = os.environ[var]
        messages = [{"role": "system", "content": request.system}, *request.messages]
        if request.tool is not None:
            kwargs["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": request.tool.name,
                        "description": request.tool.description,
                        "parameters": request.tool.schema,
                    },
                }
            ]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": request.tool.name}}
        try:
            resp = litellm.completion(
                model=self.model,
                messages=messages,
                max_tokens=request.max_tokens,
                temperature=request.temperature,
                timeout=request.timeout,
                **kwargs,
            )
        except Exception as exc:
            raise JudgeCallError(f"litellm call failed: {exc.__class__.__name__}: {exc}") from None
        return _parse_litellm(resp, self.model)


def _parse_litellm(resp: Any, model: str) -> ModelAnswer:
    message = resp.choices[0].message
    answer = ModelAnswer(text=message.content or "", model=model)
    for call in getattr(message, "tool_calls", None) or []:
        try:
            args = json.loads(call.function.arguments or "{}")
        except json.JSONDecodeError:
            args = {}
        answer.tool_calls.append((call.function.name, args if isinstance(args, dict) else {}))
    usage = getattr(resp, "usage", None)
    if usage is not None:
        answer.input_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        answer.output_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    hidden = getattr(resp, "_hidden_params", None) or {}
    cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
    answer.cost_usd = (
        float(cost)
        if isinstance(cost, int | float)
        else calculate_cost(model, answer.input_tokens, answer.output_tokens)
    )
    return answer
