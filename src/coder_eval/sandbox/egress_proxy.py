"""A unit's egress proxy: the only way out of a namespace under `network: allowlist`.

It runs in the harness, one per unit, and accepts on the unit's `egress` Unix socket, which the
holder's relay inside serves as `127.0.0.1:41415`; the unit's `HTTP_PROXY` and `HTTPS_PROXY` point
there. Because the socket belongs to one unit, every attempt is that unit's: no token is needed.
Three kinds of request arrive:

- `CONNECT host:port` (HTTPS and anything else tunnelled): allowed or refused by host and port,
  then bytes are relayed without being read;
- an absolute-form HTTP request (`GET http://host/path`): checked the same way and forwarded;
- `/index/<name>/...` (origin form): the unit's view of a package index the proxy fetches itself,
  so the index's credentials (kept in the harness) are added upstream and never reach the unit,
  and an index on the host's loopback stays reachable (`egress_mirror.py`).

Each attempt becomes a `NetworkEvent` (host, port, allowed, bytes each way, time, the unit's phase);
a refusal answers 403 with the reason the unit's record will carry.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from coder_eval.models.network import NetworkEvent
from coder_eval.sandbox.egress_mirror import MIRROR_PREFIX, Mirror
from coder_eval.sandbox.egress_policy import EgressPolicy
from coder_eval.sandbox.egress_request import BadRequestError, Request, read_request
from coder_eval.sandbox.egress_upstream import Upstream, UpstreamError

MAX_EVENTS = 5000
HALF_CLOSED_GRACE = 60.0
"""How long a tunnel waits for the far end once the unit has stopped sending, before it is cut."""
CLOSE_WAIT = 5.0
_CHUNK = 65536


def split_target(target: str, default_port: int) -> tuple[str, int] | None:
    """host and port of `host:port` or `[v6]:port`; None when malformed."""
    parts = urlsplit(f"//{target}")
    try:
        port = parts.port or default_port
    except ValueError:
        return None
    return (parts.hostname, port) if parts.hostname else None


def pump(src: socket.socket, dst: socket.socket, counter: list[int]) -> None:
    """Copy src to dst until src ends, adding the bytes to counter[0]; half-close both ends after."""
    try:
        while data := src.recv(_CHUNK):
            dst.sendall(data)
            counter[0] += len(data)
    except OSError:
        pass
    finally:
        for sock, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            with contextlib.suppress(OSError):
                sock.shutdown(how)


def relay(client: socket.socket, upstream: socket.socket, first: bytes = b"") -> tuple[int, int]:
    """Relay both ways until both ends are done; (bytes the unit sent, bytes it received)."""
    out, back = [len(first)], [0]
    if first:
        upstream.sendall(first)
    reverse = threading.Thread(target=pump, args=(upstream, client, back), daemon=True)
    reverse.start()
    pump(client, upstream, out)
    reverse.join(HALF_CLOSED_GRACE)
    if reverse.is_alive():  # the far end keeps a connection open that the unit has given up
        with contextlib.suppress(OSError):
            upstream.shutdown(socket.SHUT_RDWR)
        reverse.join()
    return out[0], back[0]


def answer(conn: socket.socket, status: int, reason: str, text: str) -> None:
    body = (text + "\n").encode()
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
    head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    with contextlib.suppress(OSError):
        conn.sendall(head.encode() + body)


class EgressProxy:
    """One unit's proxy on its Unix socket; `events` is what the unit tried, in order."""

    def __init__(self, policy: EgressPolicy, path: Path, *, upstream: Upstream | None = None) -> None:
        self.policy = policy
        self.path = path
        self.upstream = upstream or Upstream.from_environment()
        self.mirror = Mirror(policy.indexes, self.upstream)
        self.phase = "set-up"
        self.events: list[NetworkEvent] = []
        self.dropped = 0
        self._lock = threading.Lock()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        path.chmod(0o666)  # the unit's user is another uid
        self._server.listen(64)
        self._closed = False
        self._open: dict[socket.socket, threading.Thread] = {}
        self._far: set[socket.socket] = set()
        threading.Thread(target=self._accept, name=f"egress {path.name}", daemon=True).start()

    def set_phase(self, phase: str) -> None:
        self.phase = phase

    def snapshot(self) -> tuple[list[NetworkEvent], int]:
        with self._lock:
            return list(self.events), self.dropped

    def _record(self, event: NetworkEvent) -> None:
        with self._lock:
            if len(self.events) < MAX_EVENTS:
                self.events.append(event)
            else:
                self.dropped += 1

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            with self._lock:
                self._open[conn] = thread
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            try:
                request = read_request(conn)
            except BadRequestError as exc:
                answer(conn, 400, "Bad Request", f"coder-eval egress proxy: {exc}")
                return
            if request is None:
                return
            if request.method == "CONNECT":
                self._connect(conn, request)
            elif request.target.startswith(MIRROR_PREFIX):
                self._record(self.mirror.serve(conn, request, self.phase))
            elif request.target.lower().startswith("http://"):
                self._forward(conn, request)
            else:
                answer(conn, 400, "Bad Request", "coder-eval egress proxy: send CONNECT or an absolute http:// URL")
        finally:
            with self._lock:
                self._open.pop(conn, None)
            with contextlib.suppress(OSError):
                conn.close()

    def _begin(self, host: str, port: int, method: str) -> tuple[NetworkEvent, float]:
        allowed, why = self.policy.decide(host, port)
        event = NetworkEvent(
            host=host,
            port=port,
            allowed=allowed,
            reason=why,
            method=method,
            phase=self.phase,
            started_at=datetime.now(UTC),
        )
        return event, time.monotonic()

    def _deny(self, conn: socket.socket, event: NetworkEvent) -> None:
        answer(conn, 403, "Forbidden", f"network: denied {event.target()} ({event.reason})")
        self._record(event)

    def _connect(self, conn: socket.socket, request: Request) -> None:
        target = split_target(request.target, 443)
        if target is None:
            answer(conn, 400, "Bad Request", f"coder-eval egress proxy: cannot read {request.target!r}")
            return
        event, clock = self._begin(*target, "CONNECT")
        if not event.allowed:
            self._deny(conn, event)
            return
        try:
            upstream = self.upstream.tunnel(*target)
        except UpstreamError as exc:
            answer(conn, 502, "Bad Gateway", str(exc))
            self._finish(event, clock, 0, 0, str(exc))
            return
        with self._held(upstream):
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            sent, received = relay(conn, upstream, request.rest)
        self._finish(event, clock, sent, received)

    def _forward(self, conn: socket.socket, request: Request) -> None:
        parts = urlsplit(request.target)
        if not parts.hostname:
            answer(conn, 400, "Bad Request", f"coder-eval egress proxy: no host in {request.target!r}")
            return
        port = parts.port or 80
        event, clock = self._begin(parts.hostname, port, request.method)
        if not event.allowed:
            self._deny(conn, event)
            return
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        via = self.upstream.proxy_for(parts.hostname, tls=False)
        line = request.target if via is not None else path
        drop = {"proxy-connection", "proxy-authorization", "connection", "keep-alive"}
        headers = [(k, v) for k, v in request.headers if k.lower() not in drop]
        if via is not None and via.authorization:
            headers.append(("Proxy-Authorization", via.authorization))
        head = f"{request.method} {line} {request.version}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers) + "Connection: close\r\n\r\n"
        try:
            upstream = socket.create_connection((via.host, via.port) if via else (parts.hostname, port), timeout=15)
        except OSError as exc:
            answer(conn, 502, "Bad Gateway", f"cannot connect to {parts.hostname}:{port}: {exc}")
            self._finish(event, clock, 0, 0, f"unreachable: {exc}")
            return
        upstream.settimeout(None)
        with self._held(upstream):
            sent, received = relay(conn, upstream, head.encode("latin-1") + request.rest)
        self._finish(event, clock, sent, received)

    @contextlib.contextmanager
    def _held(self, upstream: socket.socket) -> Iterator[socket.socket]:
        """`upstream` for the length of a relay, cut by `close` if the unit ends first."""
        with self._lock:
            self._far.add(upstream)
        try:
            yield upstream
        finally:
            with self._lock:
                self._far.discard(upstream)
            upstream.close()

    def _finish(self, event: NetworkEvent, clock: float, sent: int, received: int, error: str | None = None) -> None:
        done = event.model_copy(
            update={
                "duration_ms": round((time.monotonic() - clock) * 1000, 3),
                "bytes_out": sent,
                "bytes_in": received,
                "error": error,
            }
        )
        self._record(done)

    def close(self) -> None:
        """Stop accepting, cut what is still open, and wait until every attempt is recorded."""
        self._closed = True
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        self.path.unlink(missing_ok=True)
        with self._lock:
            still = dict(self._open)
            far = set(self._far)
        for conn in [*still, *far]:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + CLOSE_WAIT
        for thread in still.values():
            thread.join(max(0.0, deadline - time.monotonic()))
