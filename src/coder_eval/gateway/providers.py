"""Which provider a model call goes to, where that is, and where its key comes from.

The profiles come in layers: an experiment's `providers:`, then the user's providers.yaml, then
the built-in ones (`builtin_providers.yaml`); a user profile named like a built-in one (or that
`extends` one) changes only the fields it gives. A call (wire protocol, model, the agent's own
documented variables) resolves to the first of:

1. a user or experiment profile whose `models` globs claim the model;
2. the protocol's default: the backend's (`-b litellm`, `-b bedrock`), else the experiment's or
   the user's `defaults`, else a built-in profile an agent's documented switch turns on
   (`CLAUDE_CODE_USE_BEDROCK`, `GOOGLE_GENAI_USE_VERTEXAI`);
3. a built-in profile whose `models` globs claim it (`openrouter/*`, then the catch-all `*`).

The agent's documented variables (`RouteHints`: Codex's `CODEX_API_KEY`, `CODEX_BASE_URL`,
`CODEX_API_VERSION`) are read first when the call lands on the provider they belong to. All of
this reads a snapshot of the harness's environment (`env`), never the unit's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from coder_eval.models.providers import ENV_LIST_FIELDS, ProviderProfile, ProvidersConfig, builtin_profiles

TRUE = frozenset({"1", "true", "yes", "on"})


@dataclass(frozen=True)
class RouteHints:
    """Variables an agent documents for its own provider, read before that provider's own ones."""

    provider: str = ""
    key_env: tuple[str, ...] = ()
    base_url_env: tuple[str, ...] = ()
    api_version_env: tuple[str, ...] = ()


def _merged(base: ProviderProfile, over: ProviderProfile) -> ProviderProfile:
    """`base` with every field `over` sets replaced."""
    update = {name: getattr(over, name) for name in over.model_fields_set if name != "extends"}
    return base.model_copy(update=update)


@dataclass
class ProviderSet:
    """Every profile a run knows, in the order calls are matched against them."""

    user: dict[str, ProviderProfile] = field(default_factory=dict)
    builtin: dict[str, ProviderProfile] = field(default_factory=dict)
    defaults: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, *layers: ProvidersConfig, backend_defaults: dict[str, str] | None = None) -> ProviderSet:
        """Built-ins under the user's layers (later layers win); `backend_defaults` beat every `defaults`."""
        builtin = dict(builtin_profiles().providers)
        user: dict[str, ProviderProfile] = {}
        defaults: dict[str, str] = {}
        for layer in layers:
            for name, profile in layer.providers.items():
                base = user.get(name) or builtin.get(profile.extends or name)
                if profile.extends is not None and profile.extends not in builtin and profile.extends not in user:
                    raise ValueError(f"provider {name!r} extends {profile.extends!r}, which is no known profile")
                merged = _merged(base, profile) if base is not None else profile
                if name in builtin and name not in user and not profile.models:
                    builtin[name] = merged  # a built-in adjusted in place keeps its place in the order
                else:
                    user[name] = merged
            defaults.update(layer.defaults)
        defaults.update(backend_defaults or {})
        unknown = sorted({n for n in defaults.values() if n not in user and n not in builtin})
        if unknown:
            raise ValueError(f"defaults name {unknown[0]!r}, which is no provider profile")
        return cls(user, builtin, defaults)

    def profile(self, name: str) -> ProviderProfile:
        return self.user.get(name) or self.builtin[name]

    def choose(self, protocol: str, model: str | None, env: dict[str, str]) -> tuple[str, str]:
        """(provider name, why) for a call of `protocol` naming `model`."""
        for name, profile in self.user.items():
            if protocol in profile.protocols and profile.claims(model):
                return name, f"providers: {name} claims {model}"
        default = self.defaults.get(protocol)
        if default is not None:
            return default, f"the default provider for {protocol}"
        for name, profile in self.builtin.items():
            if protocol in profile.protocols and any(env.get(v, "").lower() in TRUE for v in profile.enable_env):
                switch = next(v for v in profile.enable_env if env.get(v, "").lower() in TRUE)
                return name, f"{switch} is set"
        for name, profile in self.builtin.items():
            if protocol in profile.protocols and profile.claims(model or "") and "*" not in profile.models:
                return name, f"{name} claims {model}"
        for name, profile in self.builtin.items():
            if protocol in profile.protocols and "*" in profile.models:
                return name, f"the built-in provider for {protocol}"
        return "", f"no provider serves {protocol}"

    def referenced_variables(self) -> set[str]:
        """Every variable any profile names (what the gateway needs from the harness's environment)."""
        names: set[str] = set()
        for profile in [*self.user.values(), *self.builtin.values()]:
            for attr in ENV_LIST_FIELDS:
                names.update(getattr(profile, attr))
            names.update(profile.header_env.values())
        return names


@dataclass(frozen=True)
class Resolution:
    """Where one call goes: provider, endpoint, the model id it is sent as, and its credential."""

    provider: str
    protocol: str
    why: str
    profile: ProviderProfile | None
    base_url: str | None
    base_from: str
    model: str | None
    upstream_model: str | None
    key_from: str | None
    """The variable the credential is read from (None: no credential found)."""
    auth: str
    key: str = field(default="", repr=False)
    api_version: str | None = None
    region: str | None = None
    project: str | None = None
    location: str | None = None
    problems: tuple[str, ...] = ()
    extra_headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @property
    def host(self) -> str:
        return urlsplit(self.base_url or "").netloc or "?"

    def describe(self) -> str:
        """One line for `plan`: provider, endpoint host, model after rewrite, where the key comes from."""
        model = self.model or "(the agent's default)"
        sent = self.upstream_model if self.upstream_model and self.upstream_model != self.model else None
        text = f"{self.protocol} -> {self.provider or '(none)'} at {self.host}, model {model}"
        text += f" sent as {sent}" if sent else ""
        if self.auth == "none":
            text += ", no key sent"
        else:
            text += f", key from ${self.key_from}" if self.key_from else ", NO KEY"
        return text + (f" ({'; '.join(self.problems)})" if self.problems else "")


def _first(env: dict[str, str], names: tuple[str, ...] | list[str]) -> tuple[str | None, str | None]:
    for name in names:
        if env.get(name):
            return env[name], name
    return None, None


def _credential(profile: ProviderProfile, hints: tuple[str, ...], env: dict[str, str]) -> tuple[str, str | None, str]:
    """(key, variable, auth style): the agent's own variables, then the key, bearer and OAuth ones."""
    for names, style in ((hints, profile.auth), (profile.key_env, profile.auth), (profile.bearer_env, "bearer")):
        value, var = _first(env, names)
        if value is not None:
            return value, var, style
    value, var = _first(env, profile.oauth_env)
    if value is not None:
        return value, var, "oauth"
    return "", None, profile.auth


def resolve(
    providers: ProviderSet,
    protocol: str,
    model: str | None,
    env: dict[str, str],
    hints: RouteHints | None = None,
    override_var: str | None = None,
) -> Resolution:
    """Where a call of `protocol` for `model` goes (see the module's docstring for the order)."""
    name, why = providers.choose(protocol, model, env)
    if not name:
        return Resolution("", protocol, why, None, None, "", model, model, None, "none", problems=(why,))
    profile = providers.profile(name)
    mine = hints if hints is not None and hints.provider == name else RouteHints()
    problems: list[str] = []
    base, base_from = _first(env, [*mine.base_url_env, *profile.base_url_env])
    if override_var and env.get(override_var):
        base, base_from = env[override_var], override_var
    if base is None:
        base, base_from = profile.base_url, "the profile"
    key, key_from, auth = _credential(profile, mine.key_env, env)
    values: dict[str, Any] = {}
    for slot in ("region", "location", "project"):
        values[slot], _ = _first(env, getattr(profile, f"{slot}_env"))
    if base is None:
        hint = " or ".join(profile.base_url_env) or "base_url in providers.yaml"
        problems.append(f"{name} has no base URL: set {hint}")
    else:
        location = values["location"] or ""
        fills = {k: v or "" for k, v in values.items()}
        fills["location_prefix"] = f"{location}-" if location not in ("", "global") else ""
        missing = [slot for slot in ("region", "location", "project") if f"{{{slot}}}" in base and not values[slot]]
        if profile.path_style == "vertex" and not values["project"]:
            missing.append("project")
        if "{location_prefix}" in base and not location:
            missing.append("location")
        for slot in dict.fromkeys(missing):
            problems.append(f"{name} needs its {slot}: set {' or '.join(getattr(profile, f'{slot}_env'))}")
        base = base.format(**fills)
    version, _ = _first(env, [*mine.api_version_env, *profile.api_version_env])
    version = version or profile.api_version
    if profile.path_style == "azure" and not version:
        problems.append(f"{name} needs an api-version: set {' or '.join(profile.api_version_env) or 'api_version'}")
    needs_key = auth != "none" and not (override_var and base_from == override_var)
    if needs_key and key_from is None:
        names = [*mine.key_env, *profile.key_env, *profile.bearer_env, *profile.oauth_env]
        problems.append(f"no credential for {name}: set {' or '.join(names) or 'key_env in providers.yaml'}")
    upstream = profile.upstream_model(model) if model else model
    if upstream and profile.path_style == "bedrock" and values["region"]:
        from coder_eval.judges.model_ids import bedrock_model_id

        upstream = bedrock_model_id(upstream, values["region"])
    extra = tuple((header, env[var]) for header, var in profile.header_env.items() if env.get(var))
    return Resolution(
        name,
        protocol,
        why,
        profile,
        base,
        base_from or "",
        model,
        upstream,
        key_from,
        auth,
        key,
        version,
        values["region"],
        values["project"],
        values["location"],
        tuple(problems),
        extra,
    )


def user_providers_file(env: dict[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/coder-eval/providers.yaml` (default `~/.config/...`)."""
    source = os.environ if env is None else env
    base = source.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "coder-eval" / "providers.yaml"
