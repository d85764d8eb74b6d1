"""A request head as a unit sends it to its egress proxy, read off the connection.

Kept apart from the proxy so that the proxy and the index mirror both use it without importing
each other.
"""

from __future__ import annotations

import socket

HEAD_LIMIT = 64 * 1024
HEAD_TIMEOUT = 30.0
_CHUNK = 65536


class BadRequestError(ValueError):
    """The unit sent something that is not an HTTP request head."""


class Request:
    """A request head as the unit sent it, and whatever body bytes came with it."""

    def __init__(self, method: str, target: str, version: str, headers: list[tuple[str, str]], rest: bytes) -> None:
        self.method, self.target, self.version, self.headers, self.rest = method, target, version, headers, rest

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)


def read_request(conn: socket.socket) -> Request | None:
    """The request head off `conn`; None when it closes first, BadRequestError when it is not HTTP."""
    conn.settimeout(HEAD_TIMEOUT)
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = conn.recv(_CHUNK)
        except OSError:
            return None
        if not chunk:
            return None
        if len(data) > HEAD_LIMIT:
            raise BadRequestError("the request head is too long")
        data += chunk
    conn.settimeout(None)
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise BadRequestError(f"cannot read the request line {lines[0][:80]!r}")
    headers = [(k.strip(), v.strip()) for k, _, v in (line.partition(":") for line in lines[1:] if ":" in line)]
    return Request(parts[0].upper(), parts[1], parts[2], headers, rest)
