"""Model providers: named upstreams the gateway can send a wire protocol's calls to.

A `providers:` section (the user's `~/.config/coder-eval/providers.yaml`, an experiment file, or
the profiles built into Coder Eval) names each upstream: which wire protocols it serves, where it
is, the *name* of the variable holding its key (never a key), how the key is sent, extra headers
and query parameters, Azure's `api-version` and deployments, how a model id is rewritten, and
which models route there (`models`: globs such as `openrouter/*`). `defaults` names the provider
a protocol's calls take when no profile's `models` claims them.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, field_validator, model_validator

from coder_eval.models.base import StrictModel

AuthStyle = Literal["bearer", "x-api-key", "api-key", "x-goog-api-key", "query-key", "none"]
PathStyle = Literal["standard", "azure", "vertex", "bedrock"]
PROTOCOL_NAMES = ("anthropic", "openai_chat", "openai_responses", "gemini")
_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PLACEHOLDERS = frozenset({"region", "location", "location_prefix", "project"})


def _variables(values: list[str]) -> list[str]:
    for value in values:
        if not _VAR.match(value):
            raise ValueError(f"{value!r} is not a variable name (the variable's name goes here, never its value)")
    return values


ENV_LIST_FIELDS = (
    "base_url_env",
    "key_env",
    "bearer_env",
    "oauth_env",
    "api_version_env",
    "region_env",
    "location_env",
    "project_env",
    "enable_env",
)
"""A profile's fields that name environment variables (lists, tried in order)."""


class ProviderProfile(StrictModel):
    """One upstream. Every field a user leaves out keeps the value of the profile it extends."""

    extends: str | None = Field(None, description="A built-in profile this one starts from (e.g. azure-openai).")
    protocols: list[str] = Field(default_factory=list, description="Wire protocols it serves.")
    base_url: str | None = Field(
        None,
        description="Where it is, as its SDKs write it (OpenAI-style URLs include /v1). May use {region}, "
        "{location}, {location_prefix} and {project}.",
    )
    base_url_env: list[str] = Field(default_factory=list, description="Variables that give the base URL (first set).")
    key_env: list[str] = Field(default_factory=list, description="Variables holding the key (the first one set).")
    auth: AuthStyle = Field("bearer", description="How the key is sent.")
    bearer_env: list[str] = Field(
        default_factory=list, description="Variables whose value is sent as Authorization: Bearer instead."
    )
    oauth_env: list[str] = Field(
        default_factory=list,
        description="Variables holding an Anthropic OAuth token (what `claude setup-token` prints): sent as "
        "Authorization: Bearer with the OAuth beta flag.",
    )
    headers: dict[str, str] = Field(default_factory=dict, description="Extra headers sent upstream.")
    header_env: dict[str, str] = Field(
        default_factory=dict, description="Extra headers whose value comes from a variable (header -> variable)."
    )
    query: dict[str, str] = Field(default_factory=dict, description="Extra query parameters sent upstream.")
    api_version: str | None = Field(None, description="Azure's api-version query parameter.")
    api_version_env: list[str] = Field(default_factory=list, description="Variables that give the api-version.")
    deployments: dict[str, str] = Field(default_factory=dict, description="Azure: model id -> deployment name.")
    model_map: dict[str, str] = Field(default_factory=dict, description="Model id -> the id sent upstream.")
    strip_prefix: list[str] = Field(default_factory=list, description="Prefixes taken off a model id (openrouter/).")
    models: list[str] = Field(default_factory=list, description="Globs of the model ids routed here.")
    path_style: PathStyle = Field("standard", description="How the upstream path is built.")
    region_env: list[str] = Field(default_factory=list, description="Variables that give {region} (Bedrock).")
    location_env: list[str] = Field(default_factory=list, description="Variables that give {location} (Vertex).")
    project_env: list[str] = Field(default_factory=list, description="Variables that give {project} (Vertex).")
    enable_env: list[str] = Field(
        default_factory=list,
        description="Variables an agent documents for choosing this provider (CLAUDE_CODE_USE_BEDROCK, "
        "GOOGLE_GENAI_USE_VERTEXAI): set to a true value, the profile becomes its protocols' default.",
    )

    @field_validator(*ENV_LIST_FIELDS)
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        return _variables(value)

    @field_validator("header_env")
    @classmethod
    def _header_vars(cls, value: dict[str, str]) -> dict[str, str]:
        _variables(list(value.values()))
        return value

    @field_validator("protocols")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        unknown = [p for p in value if p not in PROTOCOL_NAMES]
        if unknown:
            raise ValueError(f"unknown wire protocol {unknown[0]!r}; expected one of {', '.join(PROTOCOL_NAMES)}")
        return value

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not re.match(r"^https?://", value):
            raise ValueError(f"base_url {value!r} must start with http:// or https://")
        names = set(re.findall(r"\{(\w+)\}", value))
        if names - _PLACEHOLDERS:
            allowed = ", ".join(sorted(_PLACEHOLDERS))
            raise ValueError(f"base_url may use {allowed}, not {sorted(names - _PLACEHOLDERS)}")
        if "@" in value.split("//", 1)[1].split("/", 1)[0]:
            raise ValueError("base_url must not carry credentials; name the variable holding the key in key_env")
        return value

    def claims(self, model: str | None) -> bool:
        """Whether `models` routes this model here."""
        return model is not None and any(fnmatch.fnmatchcase(model, glob) for glob in self.models)

    def upstream_model(self, model: str) -> str:
        """The model id as this provider names it: a prefix taken off, then the map (and Azure's deployments)."""
        for prefix in self.strip_prefix:
            if model.startswith(prefix):
                model = model[len(prefix) :]
                break
        model = self.model_map.get(model, model)
        return self.deployments.get(model, model)


class ProvidersConfig(StrictModel):
    """A `providers.yaml` (or an experiment's `providers:` section)."""

    providers: dict[str, ProviderProfile] = Field(default_factory=dict, description="Named upstreams.")
    defaults: dict[str, str] = Field(
        default_factory=dict, description="Wire protocol -> the provider its calls take unless a profile claims them."
    )

    @model_validator(mode="after")
    def _defaults_known(self) -> ProvidersConfig:
        for protocol in self.defaults:
            if protocol not in PROTOCOL_NAMES:
                known = ", ".join(PROTOCOL_NAMES)
                raise ValueError(f"defaults: unknown wire protocol {protocol!r}; expected one of {known}")
        return self


BUILTIN_FILE = Path(__file__).with_name("builtin_providers.yaml")
"""The profiles shipped with Coder Eval: the one place that names a provider's public endpoint."""


@lru_cache(maxsize=1)
def builtin_profiles() -> ProvidersConfig:
    """The profiles shipped with Coder Eval (read once)."""
    return ProvidersConfig.model_validate(yaml.safe_load(BUILTIN_FILE.read_text(encoding="utf-8")))


def public_endpoint(provider: str) -> str:
    """A built-in provider's documented public base URL (as its SDKs write it)."""
    url = builtin_profiles().providers[provider].base_url
    if url is None:
        raise KeyError(f"the built-in provider {provider!r} has no public endpoint")
    return url
