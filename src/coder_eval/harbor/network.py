"""Network settings between Harbor's task.toml and ours, both ways.

Harbor names a mode (`network_mode`: `public`, `no-network` or `allowlist` with `allowed_hosts`)
in `[environment]`, optionally overridden for the agent's phase in `[agent]` and for the
verifier's in `[verifier]`; the older `allow_internet` (a boolean, default true) means public or
no-network. Ours is one `sandbox.network` per unit (`host`, `none`, `allowlist` with
`allow_hosts`) that holds for pre_run, the agent and grading alike, so an import takes the
agent's phase (the one that runs untrusted code) and says when the verifier's differs.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from coder_eval.models.network import parse_host_rule
from coder_eval.models.task import TaskDefinition

TO_OURS = {"public": "host", "no-network": "none", "allowlist": "allowlist"}
TO_HARBOR = {v: k for k, v in TO_OURS.items()}


def _mode(section: dict[str, Any]) -> str | None:
    mode = section.get("network_mode")
    if mode is None and "allow_internet" in section:
        return "public" if section["allow_internet"] else "no-network"
    return str(mode) if mode is not None else None


def _host(entry: object, notes: list[str]) -> str | None:
    text = str(entry).strip()
    if "://" in text:  # a URL where a host was meant
        parts = urlsplit(text)
        text = parts.netloc.rpartition("@")[2]
    try:
        parse_host_rule(text)
    except ValueError as exc:
        notes.append(f"allowed_hosts entry {entry!r} is not imported: {exc}")
        return None
    return text


def import_network(config: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The `sandbox` keys (`network`, `allow_hosts`) for a Harbor task's network policy."""
    env = config.get("environment") or {}
    agent = config.get("agent") or {}
    phase = agent if _mode(agent) is not None else env
    mode = _mode(phase) or "public"  # Harbor's default: full network access
    if mode not in TO_OURS:
        raise ValueError(f"network_mode {mode!r} is not one of {', '.join(TO_OURS)}")
    out: dict[str, Any] = {"network": TO_OURS[mode]}
    if mode == "allowlist":
        hosts = [_host(h, notes) for h in phase.get("allowed_hosts") or env.get("allowed_hosts") or []]
        out["allow_hosts"] = [h for h in hosts if h]
    verifier = _mode(config.get("verifier") or {})
    if verifier is not None and verifier != mode:
        notes.append(
            f"verifier.network_mode {verifier!r} is not imported: the verifier runs as a criterion under the "
            f"unit's own policy ({TO_OURS[mode]})"
        )
    return out


def export_network(d: TaskDefinition, not_exported: list[str]) -> dict[str, Any]:
    """`[environment]` network keys for one of our tasks (run under docker, as Harbor tasks are)."""
    from coder_eval.sandbox.egress_policy import resolve_mode

    held = resolve_mode(d.sandbox, "docker")
    if held.mode == "none":
        return {"network_mode": "no-network", "allow_internet": False}
    if held.mode == "allowlist":
        not_exported.append(
            "the package indexes our allowlist adds by default (the operator's pip, uv and npm indexes) are not in "
            "allowed_hosts; list them in sandbox.allow_hosts to export them"
        )
        return {"network_mode": "allowlist", "allowed_hosts": list(d.sandbox.allow_hosts)}
    return {"network_mode": "public", "allow_internet": True}
