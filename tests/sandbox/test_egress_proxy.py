"""The egress proxy on its own: CONNECT and absolute-form HTTP by policy, the index mirror, the
operator's proxy in front, and the record of every attempt. Loopback servers only."""

from __future__ import annotations

import base64
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from coder_eval.sandbox import egress_proxy
from coder_eval.sandbox.egress_policy import EgressPolicy
from coder_eval.sandbox.egress_proxy import EgressProxy
from coder_eval.sandbox.egress_upstream import OperatorProxy, Upstream
from coder_eval.sandbox.package_indexes import IndexUrl

sys.path.insert(0, str(Path(__file__).parents[1] / "security"))
from fake_index import serve_index


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def origin() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _proxy(tmp_path: Path, allow: list[str], indexes: tuple[IndexUrl, ...] = (), **kw: object) -> EgressProxy:
    policy = EgressPolicy.build(allow, indexes)
    return EgressProxy(policy, tmp_path / "egress.sock", upstream=kw.get("upstream") or Upstream())  # type: ignore[arg-type]


def _ask(proxy: EgressProxy, raw: bytes, then: bytes = b"") -> bytes:
    """Send `raw` on the proxy's socket; after a 200 to a CONNECT, send `then` through the tunnel."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(proxy.path))
        sock.sendall(raw)
        data = b""
        if then:
            while b"\r\n\r\n" not in data:
                data += sock.recv(4096)
            if data.startswith(b"HTTP/1.1 200"):
                sock.sendall(then)
        while chunk := sock.recv(65536):
            data += chunk
    return data


def _get(port: int, path: str = "/x") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()


def test_connect_is_tunnelled_when_allowed_and_counted(tmp_path: Path, origin: int) -> None:
    proxy = _proxy(tmp_path, [f"127.0.0.1:{origin}"])
    proxy.set_phase("agent")
    try:
        out = _ask(proxy, f"CONNECT 127.0.0.1:{origin} HTTP/1.1\r\n\r\n".encode(), _get(origin))
    finally:
        proxy.close()
    assert out.startswith(b"HTTP/1.1 200 Connection established") and out.endswith(b"hello /x")
    (event,) = proxy.events
    assert (event.host, event.port, event.allowed, event.method, event.phase) == (
        "127.0.0.1",
        origin,
        True,
        "CONNECT",
        "agent",
    )
    assert event.bytes_out == len(_get(origin)) and event.bytes_in > len(b"hello /x") and event.duration_ms > 0
    assert event.reason == f"allow_hosts 127.0.0.1:{origin}"


def test_a_destination_outside_the_policy_is_refused_with_its_reason(tmp_path: Path, origin: int) -> None:
    proxy = _proxy(tmp_path, ["127.0.0.1:1"])
    try:
        tunnel = _ask(proxy, f"CONNECT 127.0.0.1:{origin} HTTP/1.1\r\n\r\n".encode(), _get(origin))
        plain = _ask(proxy, f"GET http://127.0.0.1:{origin}/y HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    finally:
        proxy.close()
    for answer in (tunnel, plain):
        assert answer.startswith(b"HTTP/1.1 403") and b"hello" not in answer
        assert f"network: denied 127.0.0.1:{origin} (not in allow_hosts)".encode() in answer
    assert [(e.allowed, e.method) for e in proxy.events] == [(False, "CONNECT"), (False, "GET")]


def test_an_absolute_http_request_is_forwarded_in_origin_form(tmp_path: Path, origin: int) -> None:
    proxy = _proxy(tmp_path, ["127.0.0.1"])  # no port: every port of the host
    try:
        out = _ask(
            proxy,
            f"GET http://127.0.0.1:{origin}/path?q=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Proxy-Connection: keep-alive\r\n\r\n".encode(),
        )
    finally:
        proxy.close()
    assert out.startswith(b"HTTP/1.") and out.endswith(b"hello /path?q=1")
    assert proxy.events[0].allowed and proxy.events[0].method == "GET" and proxy.events[0].bytes_in > 0


def test_garbage_and_unknown_forms_get_a_400(tmp_path: Path) -> None:
    proxy = _proxy(tmp_path, [])
    try:
        assert _ask(proxy, b"GET /nothing HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 400")
        assert _ask(proxy, b"CONNECT not a target HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 400")
    finally:
        proxy.close()
    assert proxy.events == []


def test_the_mirror_adds_the_credentials_and_points_links_at_itself(tmp_path: Path) -> None:
    with serve_index("127.0.0.1", user="bob", password="pa ss:w@rd") as index:
        url = f"http://bob:pa%20ss%3Aw%40rd@127.0.0.1:{index.port}/simple/"
        entry = IndexUrl(
            "pip", "PIP_INDEX_URL", f"http://127.0.0.1:{index.port}/simple/", "PIP_INDEX_URL", "bob", "pa ss:w@rd"
        )
        assert url  # the form an operator writes; the entry holds it split, as package_indexes reads it
        proxy = _proxy(tmp_path, [], (entry,))
        try:
            page = _ask(proxy, b"GET /index/pip-0/simple/ce-fetched/ HTTP/1.1\r\nHost: 127.0.0.1:41415\r\n\r\n")
            wheel = _ask(proxy, b"GET /index/pip-0/files/ce_fetched-0.1-py3-none-any.whl HTTP/1.1\r\nHost: x\r\n\r\n")
            missing = _ask(proxy, b"GET /index/pip-9/simple/ HTTP/1.1\r\nHost: x\r\n\r\n")
        finally:
            proxy.close()
        assert page.startswith(b"HTTP/1.1 200")
        assert b"http://127.0.0.1:41415/index/pip-0/files/" in page
        assert f"127.0.0.1:{index.port}".encode() not in page  # the index's own address is rewritten away
        assert wheel.startswith(b"HTTP/1.1 200") and b"PK" in wheel
        assert missing.startswith(b"HTTP/1.1 404")
        assert {auth for _, auth in index.seen} == {index.expected_authorization}
    reasons = [e.reason for e in proxy.events]
    assert reasons[:2] == ["pip index mirror (credentials added by the proxy)"] * 2
    assert proxy.events[2].allowed is False and proxy.events[2].reason == "no such index"


class _OperatorProxy(threading.Thread):
    """A forward proxy of the 'operator' that wants Basic credentials and tunnels CONNECTs."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.seen: list[str] = []

    def run(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            head = b""
            while b"\r\n\r\n" not in head:
                head += conn.recv(1)
            self.seen.append(head.decode())
            target = head.split(b" ")[1].decode()
            host, _, port = target.rpartition(":")
            upstream = socket.create_connection((host, int(port)))
            conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
            egress_proxy.relay(conn, upstream)
            conn.close()
            upstream.close()


def test_the_operators_own_proxy_is_used_with_its_credentials(tmp_path: Path, origin: int) -> None:
    operator = _OperatorProxy()
    operator.start()
    auth = "Basic " + base64.b64encode(b"corp:secret").decode()
    upstream = Upstream(https=OperatorProxy("127.0.0.1", operator.port, auth))
    proxy = _proxy(tmp_path, [f"127.0.0.1:{origin}"], upstream=upstream)
    try:
        out = _ask(proxy, f"CONNECT 127.0.0.1:{origin} HTTP/1.1\r\n\r\n".encode(), _get(origin))
    finally:
        proxy.close()
        operator.server.close()
    assert out.endswith(b"hello /x")
    assert operator.seen and f"CONNECT 127.0.0.1:{origin}" in operator.seen[0]
    assert f"Proxy-Authorization: {auth}" in operator.seen[0]


def test_upstream_settings_come_from_the_harness_environment() -> None:
    up = Upstream.from_environment(
        {"HTTPS_PROXY": "http://u:p%40ss@corp.proxy.example:8080", "NO_PROXY": "internal.example,.lan"}
    )
    assert up.https is not None and (up.https.host, up.https.port) == ("corp.proxy.example", 8080)
    assert up.https.authorization == "Basic " + base64.b64encode(b"u:p@ss").decode()
    assert up.proxy_for("pkg.internal.example", tls=True) is None and up.proxy_for("x.lan", tls=True) is None
    assert up.proxy_for("elsewhere.example", tls=True) is up.https and up.proxy_for("a.example", tls=False) is None
    assert "p%40ss" not in repr(up) and "Basic" not in repr(up)


def test_attempts_past_the_cap_are_counted_not_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(egress_proxy, "MAX_EVENTS", 2)
    proxy = _proxy(tmp_path, [])
    try:
        for _ in range(3):
            _ask(proxy, b"CONNECT 127.0.0.1:9 HTTP/1.1\r\n\r\n")
    finally:
        proxy.close()
    events, dropped = proxy.snapshot()
    assert len(events) == 2 and dropped == 1
