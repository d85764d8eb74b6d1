"""A loopback stand-in for a model provider: it keeps every request as the provider would see it, and
answers it in that provider's own shape from a scripted model.

Each fake speaks one provider's API: its paths (Azure's deployments, Vertex AI's projects and
locations, Bedrock's `/model/<id>/invoke`), and for Bedrock its binary event stream. The answer
itself comes from a script-mode gateway route (so any real agent CLI can be driven to the end of
its turn): the fake turns the provider's path back into the wire protocol's standard one, sends
the body there and relays the reply, as AWS event-stream frames for a Bedrock stream.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import threading
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

VERTEX = re.compile(r"^/v1/projects/([^/]+)/locations/([^/]+)/publishers/google/models/([^/:]+):(\w+)$")
AZURE_CHAT = re.compile(r"^/openai/deployments/([^/]+)/chat/completions$")
BEDROCK = re.compile(r"^/model/([^/]+)/(invoke|invoke-with-response-stream)$")


@dataclass
class Seen:
    """One request as it reached the provider."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body.get("model"), str) else None


@dataclass
class FakeProvider:
    kind: str
    port: int = 0
    seen: list[Seen] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _frame(payload: bytes, headers: dict[str, str]) -> bytes:
    """One AWS event-stream frame (string headers only), with both CRCs."""
    head = b"".join(
        bytes([len(k)]) + k.encode() + b"\x07" + struct.pack(">H", len(v)) + v.encode() for k, v in headers.items()
    )
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + head + payload
    return message + struct.pack(">I", zlib.crc32(message))


def sse_to_eventstream(body: bytes) -> bytes:
    """Anthropic SSE as Bedrock's event stream: one `chunk` frame per event, its JSON base64 in `bytes`."""
    out = b""
    for block in body.decode().split("\n\n"):
        data = [line[5:].strip() for line in block.splitlines() if line.startswith("data:")]
        if not data:
            continue
        payload = json.dumps({"bytes": base64.b64encode("\n".join(data).encode()).decode()}).encode()
        out += _frame(payload, {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"})
    return out


def _standard(kind: str, path: str, body: dict[str, Any]) -> tuple[str, dict[str, Any], str | None]:
    """(the wire protocol's own path, the body to send it, the Bedrock verb) for a provider's request."""
    if kind == "azure":
        if AZURE_CHAT.match(path):
            return "/v1/chat/completions", body, None
        return "/v1" + path.removeprefix("/openai"), body, None
    if kind == "vertex":
        found = VERTEX.match(path)
        assert found, path
        return f"/v1beta/models/{found.group(3)}:{found.group(4)}", body, None
    if kind == "bedrock":
        found = BEDROCK.match(path)
        assert found, path
        stream = found.group(2) == "invoke-with-response-stream"
        sent = {k: v for k, v in body.items() if k not in ("anthropic_version", "anthropic_beta")}
        return "/v1/messages", {**sent, "model": found.group(1), "stream": stream}, found.group(2)
    if kind == "openrouter":
        return "/v1" + path.removeprefix("/api/v1"), body, None
    if kind in ("openai", "litellm") and not path.startswith("/v1/"):
        return "/v1" + path, body, None
    return path, body, None


def _handler(fake: FakeProvider, answer_url: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            parts = urlsplit(self.path)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw) if raw else {}
            headers = {k.lower(): v for k, v in self.headers.items()}
            fake.seen.append(Seen("POST", parts.path, dict(parse_qsl(parts.query)), headers, body))
            path, sent, verb = _standard(fake.kind, parts.path, body)
            query = "?alt=sse" if "alt=sse" in parts.query else ""
            request = urllib.request.Request(
                answer_url + path + query,
                data=json.dumps(sent).encode(),
                headers={"content-type": "application/json", "anthropic-version": "2023-06-01"},
            )
            try:
                with urllib.request.urlopen(request, timeout=60) as reply:
                    status, kind, data = reply.status, reply.headers.get("Content-Type", ""), reply.read()
            except urllib.error.HTTPError as exc:
                status, kind, data = exc.code, exc.headers.get("Content-Type", ""), exc.read()
            if verb == "invoke-with-response-stream" and status == 200:
                kind, data = "application/vnd.amazon.eventstream", sse_to_eventstream(data)
            elif verb == "invoke" and status == 200:
                data = json.dumps({k: v for k, v in json.loads(data).items() if k != "model"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # model listings some CLIs ask for: none here
            fake.seen.append(Seen("GET", urlsplit(self.path).path, {}, dict(self.headers.items()), {}))
            body = b'{"data": [], "models": []}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


@contextmanager
def fake_provider(kind: str, answer_url: str) -> Iterator[FakeProvider]:
    """A fake of provider `kind` on a free loopback port, answering from `answer_url` (a script route)."""
    fake = FakeProvider(kind)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake, answer_url.rstrip("/")))
    fake.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
