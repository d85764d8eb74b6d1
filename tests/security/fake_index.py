"""A package index served by the test on a loopback address: PEP 503 pages and one small wheel.

It listens on `127.0.0.2` by default, a loopback address that is not in a unit's NO_PROXY, so a
unit can only reach it through its egress proxy (inside a unit, loopback is the unit's own). With
`user`/`password` set it answers 401 to any request but `/hello` without those Basic credentials. Every
request is kept (`seen`: path and the Authorization header), so a test can tell what arrived.
"""

from __future__ import annotations

import base64
import hashlib
import io
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WHEEL_NAME = "ce_fetched-0.1-py3-none-any.whl"


def wheel_bytes() -> bytes:
    """A minimal wheel of `ce_fetched` (VALUE = "fetched"), built in memory."""
    files = {
        "ce_fetched/__init__.py": b'VALUE = "fetched"\n',
        "ce_fetched-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: ce-fetched\nVersion: 0.1\n",
        "ce_fetched-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append("ce_fetched-0.1.dist-info/RECORD,,")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        zf.writestr("ce_fetched-0.1.dist-info/RECORD", "\n".join(record) + "\n")
    return buffer.getvalue()


@dataclass
class FakeIndex:
    host: str
    port: int
    user: str = ""
    password: str = ""
    seen: list[tuple[str, str]] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def url(self, *, credentials: bool = False) -> str:
        auth = f"{self.user}:{self.password}@" if credentials and self.user else ""
        return f"http://{auth}{self.host}:{self.port}/simple/"

    @property
    def expected_authorization(self) -> str:
        return "Basic " + base64.b64encode(f"{self.user}:{self.password}".encode()).decode()


def _handler(index: FakeIndex, wheel: bytes) -> type[BaseHTTPRequestHandler]:
    digest = hashlib.sha256(wheel).hexdigest()
    origin = f"http://{index.host}:{index.port}"

    class Handler(BaseHTTPRequestHandler):
        head_only = False

        def do_HEAD(self) -> None:
            self.head_only = True
            self.do_GET()

        def do_GET(self) -> None:
            auth = self.headers.get("Authorization") or ""
            index.seen.append((self.path, auth))
            if index.user and auth != index.expected_authorization and self.path != "/hello":
                self._send(401, b"credentials required\n", "text/plain", {"WWW-Authenticate": 'Basic realm="fake"'})
                return
            path = self.path.split("?", 1)[0]
            if path in ("/simple", "/simple/"):
                self._send(200, b'<html><body><a href="ce-fetched/">ce-fetched</a></body></html>\n', "text/html")
            elif path.rstrip("/") == "/simple/ce-fetched":
                # an absolute link to this index's own files, as many indexes write them
                link = f'<a href="{origin}/files/{WHEEL_NAME}#sha256={digest}">{WHEEL_NAME}</a>'
                self._send(200, f"<html><body>{link}</body></html>\n".encode(), "text/html")
            elif path == f"/files/{WHEEL_NAME}":
                self._send(200, wheel, "application/octet-stream")
            elif path == "/hello":
                self._send(200, b"hello from the index\n", "text/plain")
            else:
                self._send(404, b"not here\n", "text/plain")

        def _send(self, status: int, body: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            if not self.head_only:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


@contextmanager
def serve_index(host: str = "127.0.0.2", *, user: str = "", password: str = "") -> Iterator[FakeIndex]:
    """A fake index on `host` and a free port, for the length of the block."""
    index = FakeIndex(host, 0, user, password)
    server = ThreadingHTTPServer((host, 0), _handler(index, wheel_bytes()))
    index.port = server.server_address[1]
    server.RequestHandlerClass = _handler(index, wheel_bytes())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield index
    finally:
        server.shutdown()
        server.server_close()
