"""Where a relayed call goes: the run's providers resolved over the harness's variables, and the request built.

The gateway holds one `ProviderRouter` per server. `providers` and `env` (a snapshot of the
harness's own environment, never a unit's) decide the provider (`providers.py`); `upstreams` and
`api_keys` pin a protocol's base URL and key by protocol name over that answer (tests, and plugin
protocols that have no profile, which otherwise use their own declared upstream and key variable).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from coder_eval.gateway import upstream_request
from coder_eval.gateway.protocol import WireProtocol
from coder_eval.gateway.providers import ProviderSet, Resolution, RouteHints, resolve
from coder_eval.gateway.routes import ModelCall

_GEMINI_MODEL = re.compile(r"/models/([^/:]+):")


def call_model(call: ModelCall) -> str | None:
    """The model a call names: its body's (or parsed request's), Gemini's path, else the route's hint."""
    named = call.request.model if call.request is not None else call.body.get("model")
    if isinstance(named, str) and named:
        return named
    found = _GEMINI_MODEL.search(call.path)
    return found.group(1) if found else call.route.model_hint


@dataclass
class ProviderRouter:
    providers: ProviderSet | None = None
    env: dict[str, str] = field(default_factory=dict, repr=False)
    upstreams: dict[str, str] = field(default_factory=dict)
    api_keys: dict[str, str] = field(default_factory=dict, repr=False)

    def resolve_for(self, protocol: WireProtocol, model: str | None, hints: RouteHints | None = None) -> Resolution:
        """Where a call of `protocol` for `model` would go: the resolution, pinned upstreams and keys applied."""
        name = protocol.name
        if self.providers is None:
            self.providers = ProviderSet.build()
        res = resolve(self.providers, name, model, self.env, hints, protocol.upstream_var)
        if name in self.upstreams:
            kept = tuple(p for p in res.problems if "base URL" not in p and "credential" not in p)
            res = replace(res, base_url=self.upstreams[name], base_from="pinned", problems=kept)
        if name in self.api_keys:
            res = replace(res, key=self.api_keys[name], key_from="pinned")
        return res

    def resolution(self, call: ModelCall) -> Resolution:
        """Where `call` goes."""
        return self.resolve_for(call.protocol, call_model(call), call.route.hints)

    def plugin_upstream(self, call: ModelCall) -> tuple[str, str | None]:
        """(base URL, key) for a protocol no profile serves: its own declarations, or what is pinned."""
        name, protocol = call.protocol.name, call.protocol
        base = self.upstreams.get(name) or self.env.get(protocol.upstream_var) or protocol.upstream
        return base, self.api_keys.get(name) or self.env.get(protocol.api_key_var)

    @staticmethod
    def request(res: Resolution, call: ModelCall, headers: dict[str, str]) -> upstream_request.UpstreamRequest:
        """The request the provider is sent for `call` (`headers`: the agent's, per-hop ones removed)."""
        return upstream_request.build(
            res, path=call.path, query=list(call.http.query.items()), headers=headers, body=call.body, raw=call.raw
        )
