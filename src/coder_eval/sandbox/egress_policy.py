"""A unit's egress policy: which network mode holds for it, and which destinations it may reach.

`sandbox.network` picks the mode; unset, it is `allowlist` under the isolating drivers. Under
`allowlist` the unit reaches nothing directly: its HTTP(S)_PROXY is the harness's egress proxy,
which lets through the task's `allow_hosts` and the package indexes the operator's own tools are
configured with (`package_indexes.py`), and records every attempt. tempdir cannot hold a policy
(its commands run on the host), and docker with a `docker.network` of its own reaches whatever
that network reaches; both are said so, in `plan` and in the unit's record.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coder_eval.models.network import HostRule, NetworkMode, normalize_host, parse_host_rule
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.package_indexes import IndexUrl, operator_indexes

ISOLATING = ("bubblewrap", "docker")


@dataclass(frozen=True)
class HeldNetwork:
    """How a driver holds `sandbox.network` for one unit."""

    mode: NetworkMode
    enforced: bool
    note: str = ""


def resolve_mode(config: SandboxConfig, driver: str) -> HeldNetwork:
    """The mode that holds under `driver` (already resolved from `auto`) for these settings."""
    asked = config.network
    if driver == "tempdir":
        if asked in ("none", "allowlist"):
            return HeldNetwork("host", False, f"tempdir cannot hold sandbox.network {asked}: the host's network")
        return HeldNetwork("host", False, "tempdir: the host's network")
    if driver == "docker":
        own = config.docker.network if config.docker is not None else None
        if own and own != "none":
            return HeldNetwork("host", True, f"docker.network {own}: whatever that network reaches")
        if own == "none" and asked is None:
            return HeldNetwork("none", True, "docker.network none")
    if driver not in ISOLATING:
        return HeldNetwork(asked or "allowlist", False, f"driver {driver}: the policy is up to the driver")
    return HeldNetwork(asked or "allowlist", True)


@dataclass(frozen=True)
class EgressPolicy:
    """What a unit under `allowlist` may reach: the task's rules, then the operator's indexes."""

    rules: tuple[HostRule, ...] = ()
    indexes: tuple[IndexUrl, ...] = ()
    _index_rules: tuple[tuple[HostRule, str], ...] = field(default=(), repr=False)

    @classmethod
    def build(cls, allow_hosts: list[str], indexes: tuple[IndexUrl, ...] | None = None) -> EgressPolicy:
        found = operator_indexes() if indexes is None else indexes
        index_rules: list[tuple[HostRule, str]] = []
        for index in found:
            index_rules.append((HostRule(index.host, index.port), f"{index.tool} index ({index.source})"))
            for extra in index.extra_hosts:
                index_rules.append((parse_host_rule(extra), f"{index.tool} index files ({index.source})"))
        return cls(tuple(parse_host_rule(h) for h in allow_hosts), found, tuple(index_rules))

    def decide(self, host: str, port: int) -> tuple[bool, str]:
        """(allowed, why): the rule or index that allows it, or 'not in allow_hosts'."""
        name = normalize_host(host)
        for rule in self.rules:
            if rule.matches(name, port):
                return True, f"allow_hosts {rule}"
        for rule, why in self._index_rules:
            if rule.matches(name, port):
                return True, why
        return False, "not in allow_hosts"

    def allowed(self) -> list[str]:
        """Every allowed destination as `host[:port]`, the task's first (for plan and the record)."""
        out = [str(r) for r in self.rules] + [str(r) for r, _ in self._index_rules]
        return list(dict.fromkeys(out))


def describe(config: SandboxConfig, driver: str, indexes: tuple[IndexUrl, ...] | None = None) -> str:
    """One line for `plan`: the network a unit of this task gets under `driver`."""
    held = resolve_mode(config, driver)
    if held.mode == "none":
        text = "network none (nothing but the gateway route)"
    elif held.mode == "host":
        text = "network host (not filtered)"
    else:
        policy = EgressPolicy.build(config.allow_hosts, indexes)
        hosts = policy.allowed()
        shown = ", ".join(hosts[:8]) + (f", and {len(hosts) - 8} more" if len(hosts) > 8 else "")
        text = f"network allowlist through the egress proxy: {shown or 'nothing (no index found)'}"
        credentialed = [i.public_url for i in policy.indexes if i.has_credentials]
        if credentialed:
            text += f"; credentials of {', '.join(credentialed)} stay in the proxy"
    if held.note:
        text += f" [{held.note}]"
    if not held.enforced and held.mode != "none":
        text += " (not enforced)"
    return text
