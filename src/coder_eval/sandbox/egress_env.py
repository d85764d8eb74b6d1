"""The variables a unit under `network: allowlist` gets: its proxy, and its indexes as it reaches them.

Every HTTP client the unit runs (pip, uv, npm, git, curl, Python's urllib, most SDKs) reads
`HTTP(S)_PROXY` and sends everything that is not loopback to the egress proxy. Index settings are
given as environment variables, because a unit never sees the operator's home where their
configuration files live: an index that needs the proxy's mirror (credentials, a loopback host)
is given by its mirror address, any other one by its own URL, and none ever with a credential.
"""

from __future__ import annotations

from coder_eval.sandbox.egress_mirror import INNER_ORIGIN, mirror_names, needs_mirror, unit_url
from coder_eval.sandbox.egress_policy import EgressPolicy
from coder_eval.sandbox.package_indexes import IndexUrl

NO_PROXY = "127.0.0.1,localhost,::1"
_TOOL_DEFAULTS = ("pip's default", "uv's default")
_SINGLE = frozenset({"PIP_INDEX_URL", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "npm_config_registry"})


def proxy_env() -> dict[str, str]:
    """HTTP(S)_PROXY at the unit's relay, in both spellings; its own loopback bypasses the proxy."""
    names = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "npm_config_proxy", "npm_config_https_proxy")
    env = dict.fromkeys(names, INNER_ORIGIN)
    env["NO_PROXY"] = env["no_proxy"] = NO_PROXY
    return env


def _unseen(index: IndexUrl) -> bool:
    """Read where the unit cannot look: a file outside /etc (the operator's home), or npm's merged config."""
    if index.source in _TOOL_DEFAULTS:
        return False
    if index.source == "npm config":  # may come from the operator's ~/.npmrc
        return True
    return index.source.startswith("/") and not index.source.startswith("/etc/")


def index_env(indexes: tuple[IndexUrl, ...]) -> dict[str, str]:
    """Index settings whose value inside must differ from the harness's, or which the unit could not see."""
    names = mirror_names(indexes)
    by_setting: dict[str, list[IndexUrl]] = {}
    for index in indexes:
        by_setting.setdefault(index.setting, []).append(index)
    env: dict[str, str] = {}
    for setting, entries in by_setting.items():
        if not any(needs_mirror(e) or e.has_credentials or _unseen(e) for e in entries):
            continue
        urls = [unit_url(e, names) for e in entries if e.source not in _TOOL_DEFAULTS]
        if urls:
            env[setting] = urls[-1] if setting in _SINGLE else " ".join(dict.fromkeys(urls))
    return env


def unit_network_env(policy: EgressPolicy) -> dict[str, str]:
    """Everything a unit under `allowlist` needs to go out through its proxy."""
    return {**proxy_env(), **index_env(policy.indexes)}
