"""Package indexes a unit reaches through its egress proxy acting as the index itself.

Two kinds of index cannot simply be tunnelled to: one whose URL carries credentials (a tunnel is
encrypted end to end, so the proxy could not add them, and the unit must never hold them) and one
on the host's loopback (inside the unit, 127.0.0.1 is the unit's own). For those the unit's index
setting is rewritten to `http://127.0.0.1:41415/index/<name>/<path>`, plain HTTP to its own
loopback, which the relay carries to the harness; the proxy fetches `<origin>/<path>` itself, adds
the credentials (HTTP Basic, as pip, uv and npm send userinfo), and rewrites the index's own
absolute URLs in the pages it returns (simple-index HTML and JSON, npm metadata) so that the
files they link to come through the same way.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import ipaddress
import re
import socket
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from coder_eval.models.network import NetworkEvent
from coder_eval.sandbox.egress_upstream import CONNECT_TIMEOUT, Upstream
from coder_eval.sandbox.package_indexes import IndexUrl

if TYPE_CHECKING:
    from coder_eval.sandbox.egress_request import Request

INNER_EGRESS_PORT = 41415
"""The loopback port the relay serves inside a unit for its egress proxy."""
INNER_ORIGIN = f"http://127.0.0.1:{INNER_EGRESS_PORT}"
MIRROR_PREFIX = "/index/"
REWRITE_LIMIT = 32 * 1024 * 1024
_TEXT_TYPES = re.compile(r"^(text/html|application/(json|vnd\.pypi\.simple[\w.+-]*|vnd\.npm[\w.+-]*))", re.I)
_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authorization",
        "te",
        "trailer",
        "upgrade",
        "transfer-encoding",
        "host",
        "authorization",
        "accept-encoding",
        "content-length",
    }
)
_CHUNK = 65536


def is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.localdomain") or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def needs_mirror(index: IndexUrl) -> bool:
    """Whether a unit reaches `index` through the proxy's mirror rather than a tunnel."""
    return index.has_credentials or is_loopback(index.host)


def mirror_names(indexes: tuple[IndexUrl, ...]) -> dict[str, IndexUrl]:
    """`<tool>-<n>` for every index that needs a mirror (one name per distinct origin and credential)."""
    names: dict[str, IndexUrl] = {}
    seen: dict[tuple[str, str, str, str], str] = {}
    for index in indexes:
        if not needs_mirror(index):
            continue
        key = (index.origin, index.username, index.password, index.tool)
        if key not in seen:
            seen[key] = f"{index.tool}-{len(seen)}"
            names[seen[key]] = index
    return names


def unit_url(index: IndexUrl, names: dict[str, IndexUrl]) -> str:
    """The URL a unit is given for `index`: its mirror address, or its own URL (never with credentials)."""
    for name, mirrored in names.items():
        if (mirrored.origin, mirrored.username, mirrored.password) == (index.origin, index.username, index.password):
            parts = urlsplit(index.public_url)
            tail = parts.path + (f"?{parts.query}" if parts.query else "")
            return f"{INNER_ORIGIN}{MIRROR_PREFIX}{name}{tail}"
    return index.public_url


class Mirror:
    """Serves `/index/<name>/...` for one unit from the real indexes."""

    def __init__(self, indexes: tuple[IndexUrl, ...], upstream: Upstream) -> None:
        self.names = mirror_names(indexes)
        self.upstream = upstream

    def serve(self, conn: socket.socket, request: Request, phase: str) -> NetworkEvent:
        name, _, rest = request.target[len(MIRROR_PREFIX) :].partition("/")
        index = self.names.get(name)
        started, clock = datetime.now(UTC), time.monotonic()
        if index is None:
            _plain(conn, 404, f"coder-eval egress proxy: no index named {name!r}")
            return NetworkEvent(
                host=f"index {name}",
                port=INNER_EGRESS_PORT,
                allowed=False,
                reason="no such index",
                method=request.method,
                phase=phase,
                started_at=started,
            )
        why = f"{index.tool} index mirror" + (" (credentials added by the proxy)" if index.has_credentials else "")
        event = NetworkEvent(
            host=index.host,
            port=index.port,
            allowed=True,
            reason=why,
            method=request.method,
            phase=phase,
            started_at=started,
        )
        if request.method not in ("GET", "HEAD"):
            _plain(conn, 405, "coder-eval egress proxy: an index mirror serves GET and HEAD only")
            return event.model_copy(update={"error": f"{request.method} refused"})
        try:
            received = self._fetch(conn, request, index, name, "/" + rest)
            error = None
        except (OSError, http.client.HTTPException) as exc:
            _plain(conn, 502, f"coder-eval egress proxy: {index.origin} unreachable: {exc}")
            received, error = 0, f"unreachable: {exc}"
        return event.model_copy(
            update={"duration_ms": round((time.monotonic() - clock) * 1000, 3), "bytes_in": received, "error": error}
        )

    def _connection(self, index: IndexUrl) -> http.client.HTTPConnection:
        tls = index.scheme == "https"
        proxy = self.upstream.proxy_for(index.host, tls=tls)
        cls = http.client.HTTPSConnection if tls else http.client.HTTPConnection
        if proxy is None:
            return cls(index.host, index.port, timeout=CONNECT_TIMEOUT)
        conn = cls(proxy.host, proxy.port, timeout=CONNECT_TIMEOUT)
        tunnel = {"Proxy-Authorization": proxy.authorization} if proxy.authorization else None
        conn.set_tunnel(index.host, index.port, headers=tunnel)
        return conn

    def _fetch(self, conn: socket.socket, request: Request, index: IndexUrl, name: str, path: str) -> int:
        headers = {k: v for k, v in request.headers if k.lower() not in _HOP}
        headers["Accept-Encoding"] = "identity"  # pages are rewritten, so they must arrive as text
        if index.has_credentials:
            pair = f"{index.username}:{index.password}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        upstream = self._connection(index)
        try:
            upstream.request(request.method, path, headers=headers)
            response = upstream.getresponse()
            return self._relay(conn, response, index, name)
        finally:
            upstream.close()

    def _relay(self, conn: socket.socket, response: http.client.HTTPResponse, index: IndexUrl, name: str) -> int:
        mine = f"{INNER_ORIGIN}{MIRROR_PREFIX}{name}"
        kept = [(k, v) for k, v in response.getheaders() if k.lower() not in _HOP | {"content-encoding"}]
        kept = [(k, _rewrite_text(v, index, mine) if k.lower() == "location" else v) for k, v in kept]
        length = response.getheader("Content-Length")
        kind = response.getheader("Content-Type") or ""
        head = f"HTTP/1.1 {response.status} {response.reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in kept)
        if _TEXT_TYPES.match(kind) and (length is None or int(length) <= REWRITE_LIMIT):
            body = _rewrite(response.read(REWRITE_LIMIT + 1), index, mine, html=kind.lower().startswith("text/html"))
            head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            conn.sendall(head.encode("latin-1") + body)
            return len(body)
        head += (f"Content-Length: {length}\r\n" if length else "") + "Connection: close\r\n\r\n"
        conn.sendall(head.encode("latin-1"))
        sent = 0
        while chunk := response.read(_CHUNK):
            conn.sendall(chunk)
            sent += len(chunk)
        return sent


def _origins(index: IndexUrl) -> list[str]:
    parts = urlsplit(index.public_url)
    host = parts.hostname or ""
    default = 443 if parts.scheme == "https" else 80
    forms = [f"{parts.scheme}://{parts.netloc}", f"{parts.scheme}://{host}:{index.port}"]
    if index.port == default:
        forms.append(f"{parts.scheme}://{host}")
    return sorted(set(forms), key=len, reverse=True)


def _rewrite_text(text: str, index: IndexUrl, mine: str) -> str:
    for origin in _origins(index):
        text = text.replace(origin + "/", mine + "/")
    return text


def _rewrite(body: bytes, index: IndexUrl, mine: str, *, html: bool) -> bytes:
    """The index's absolute URLs (and, in HTML, root-relative links) pointed at the mirror."""
    for origin in _origins(index):
        body = body.replace(origin.encode() + b"/", mine.encode() + b"/")
        body = body.replace(origin.replace("/", "\\/").encode() + b"\\/", mine.replace("/", "\\/").encode() + b"\\/")
    if html:
        prefix = urlsplit(mine).path.encode()
        link = re.compile(rb'(href|src)=(["\'])/(?!/|index/)')
        body = link.sub(lambda m: m.group(1) + b"=" + m.group(2) + prefix + b"/", body)
    return body


def _plain(conn: socket.socket, status: int, text: str) -> None:
    body = (text + "\n").encode()
    head = f"HTTP/1.1 {status} Error\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
    head += "Connection: close\r\n\r\n"
    with contextlib.suppress(OSError):
        conn.sendall(head.encode() + body)
