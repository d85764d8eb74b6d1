"""A unit's network boundary: host rules of an egress policy, and the record of what went out.

`allow_hosts` entries are `host`, `host:port`, `*.domain` or `*.domain:port` (an IPv6 address in
brackets, `[::1]:8080`). Without a port a rule allows every port of the host. Matching ignores
case and a trailing dot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import Field

from coder_eval.models.base import RecordModel

NetworkMode = Literal["none", "allowlist", "host"]
NETWORK_MODES: tuple[NetworkMode, ...] = ("none", "allowlist", "host")

_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOSTNAME = re.compile(rf"^(?:\*\.)?(?:{_LABEL}\.)*{_LABEL}$")
_IPV6 = re.compile(r"^[0-9a-f:.]+$")


@dataclass(frozen=True)
class HostRule:
    """One allowed destination: a host (or `*.` suffix) and an optional port."""

    host: str
    port: int | None = None

    @property
    def wildcard(self) -> bool:
        return self.host.startswith("*.")

    def matches(self, host: str, port: int) -> bool:
        name = normalize_host(host)
        if self.port is not None and self.port != port:
            return False
        if self.wildcard:
            suffix = self.host[1:]  # ".example.org"
            return name.endswith(suffix) and len(name) > len(suffix)
        return name == self.host

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port is None else f"{host}:{self.port}"


def normalize_host(host: str) -> str:
    """Lower case, no trailing dot, no IPv6 brackets."""
    return host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


def parse_host_rule(text: str) -> HostRule:
    """`host[:port]` as a HostRule; ValueError with a reason for anything else (a URL, a path, a bad port)."""
    raw = text.strip()
    if not raw or "/" in raw or "@" in raw or " " in raw:
        raise ValueError(f"{text!r} is not host[:port] (give the host name, e.g. pypi.example.org or host:8080)")
    port: int | None = None
    if raw.startswith("["):
        host, sep, rest = raw[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError(f"{text!r}: an IPv6 address is written [addr] or [addr]:port")
        port_text = rest[1:] if rest else None
        if not _IPV6.match(host.lower()):
            raise ValueError(f"{text!r}: {host!r} is not an IPv6 address")
    elif raw.count(":") > 1:  # a bare IPv6 address, no port
        host, port_text = raw, None
        if not _IPV6.match(host.lower()):
            raise ValueError(f"{text!r} is not host[:port]")
    else:
        host, sep, after = raw.partition(":")
        port_text = after if sep else None
        if not _HOSTNAME.match(normalize_host(host)):
            raise ValueError(f"{text!r}: {host!r} is not a host name or address (wildcards only as a leading '*.')")
    if port_text is not None:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
        port = int(port_text)
    return HostRule(normalize_host(host), port)


class NetworkEvent(RecordModel):
    """One attempt of a unit to reach something outside it through its egress proxy."""

    host: str = Field(description="Host the unit asked for.")
    port: int = Field(description="Port the unit asked for.")
    allowed: bool = Field(description="Whether the policy let it through.")
    reason: str = Field("", description="Why it was denied, or which rule (or index) allowed it.")
    method: str = Field("CONNECT", description="CONNECT (a tunnel, e.g. HTTPS), an HTTP method, or INDEX (a mirror).")
    phase: str = Field("", description="What the unit was doing: pre_run, agent, grading or post_run.")
    started_at: datetime = Field(description="When the attempt arrived (UTC).")
    duration_ms: float = Field(0.0, description="From arrival until the connection closed.")
    bytes_out: int = Field(0, description="Bytes the unit sent upstream.")
    bytes_in: int = Field(0, description="Bytes the unit received from upstream.")
    error: str | None = Field(None, description="Why an allowed attempt still failed (unreachable, refused).")

    def target(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


class NetworkRecord(RecordModel):
    """The unit's egress policy as it held, and every attempt it made (task.json `network`)."""

    mode: NetworkMode = Field(description="none, allowlist or host, as it applied to this unit.")
    enforced: bool = Field(True, description="False when the driver could not hold the policy (tempdir).")
    note: str = Field("", description="How the policy came about (e.g. 'docker.network bridge').")
    allow_hosts: list[str] = Field(default_factory=list, description="Every destination the policy allowed.")
    events: list[NetworkEvent] = Field(default_factory=list, description="Every attempt, in order.")
    dropped_events: int = Field(0, description="Attempts beyond the recorded maximum (counted, not listed).")

    @property
    def denied(self) -> list[NetworkEvent]:
        return [e for e in self.events if not e.allowed]


def denied_reason(record: NetworkRecord | None) -> str | None:
    """'network: denied example.org:443 (not in allow_hosts)' for the first denial, None without one."""
    if record is None:
        return None
    denied = record.denied
    if not denied:
        return None
    first = denied[0]
    more = len({e.target() for e in denied}) - 1
    tail = f"; {more} more host(s) denied" if more > 0 else ""
    return f"network: denied {first.target()} ({first.reason or 'not in allow_hosts'}){tail}"
