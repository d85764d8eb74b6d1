"""How the egress proxy itself reaches a destination: directly, or through the operator's own proxy.

The harness's HTTP(S)_PROXY (and NO_PROXY) say how this machine goes out; the egress proxy follows
them for the connections it makes on a unit's behalf, adding the operator's proxy credentials
itself. Units never see those settings' credentials: their proxy is the egress proxy.
"""

from __future__ import annotations

import base64
import os
import socket
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

CONNECT_TIMEOUT = 15.0
_HEAD_LIMIT = 64 * 1024


class UpstreamError(OSError):
    """The destination (or the operator's proxy in front of it) could not be reached."""


@dataclass(frozen=True)
class OperatorProxy:
    """The machine's own forward proxy for one scheme, with its credentials (kept here)."""

    host: str
    port: int
    authorization: str = field(default="", repr=False)

    @classmethod
    def parse(cls, url: str) -> OperatorProxy | None:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if not parts.hostname:
            return None
        auth = ""
        if parts.username is not None:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            auth = "Basic " + base64.b64encode(pair.encode()).decode()
        return cls(parts.hostname, parts.port or 3128, auth)


@dataclass(frozen=True)
class Upstream:
    """The way out: the operator's proxies per scheme and the hosts they are bypassed for."""

    https: OperatorProxy | None = None
    http: OperatorProxy | None = None
    bypass: tuple[str, ...] = ()

    @classmethod
    def from_environment(cls, env: dict[str, str] | None = None) -> Upstream:
        source = dict(os.environ) if env is None else env

        def pick(*names: str) -> OperatorProxy | None:
            value = next((source[n] for n in names if source.get(n)), "")
            return OperatorProxy.parse(value) if value else None

        bypass = next((source[n] for n in ("no_proxy", "NO_PROXY") if source.get(n)), "")
        names = tuple(w.strip().lower().lstrip(".") for w in bypass.split(",") if w.strip())
        return cls(pick("https_proxy", "HTTPS_PROXY"), pick("http_proxy", "HTTP_PROXY"), names)

    def proxy_for(self, host: str, *, tls: bool) -> OperatorProxy | None:
        chosen = self.https if tls else self.http
        if chosen is None:
            return None
        name = host.lower()
        for entry in self.bypass:
            if entry == "*" or name == entry or name.endswith("." + entry):
                return None
        return chosen

    def tunnel(self, host: str, port: int) -> socket.socket:
        """A connected socket to host:port (a CONNECT through the operator's proxy when it has one)."""
        proxy = self.proxy_for(host, tls=True)
        if proxy is None:
            return _connect(host, port)
        sock = _connect(proxy.host, proxy.port)
        target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        head = f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n"
        if proxy.authorization:
            head += f"Proxy-Authorization: {proxy.authorization}\r\n"
        try:
            sock.sendall((head + "\r\n").encode())
            status = _read_status(sock)
        except OSError as exc:
            sock.close()
            raise UpstreamError(f"the operator's proxy {proxy.host}:{proxy.port} failed: {exc}") from None
        if status != 200:
            sock.close()
            raise UpstreamError(f"the operator's proxy {proxy.host}:{proxy.port} refused the tunnel (HTTP {status})")
        return sock


def _connect(host: str, port: int) -> socket.socket:
    try:
        sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise UpstreamError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
    sock.settimeout(None)
    return sock


def _read_status(sock: socket.socket) -> int:
    """Read a response head off `sock` (and nothing after it) and return its status code."""
    data = b""
    while b"\r\n\r\n" not in data:
        byte = sock.recv(1)  # byte by byte: what follows the head belongs to the tunnel
        if not byte or len(data) > _HEAD_LIMIT:
            raise UpstreamError("the operator's proxy closed the connection")
        data += byte
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        raise UpstreamError("the operator's proxy answered something that is not HTTP") from None
