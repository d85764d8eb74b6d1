"""The headers and checks that keep the board's pages inert and local.

Agent output is untrusted, so the page never builds HTML from data (the front end only sets
text), and the Content-Security-Policy below allows scripts, styles and fetches from the board
itself only: no inline script, no eval, no other origin. Files from a run are never rendered
by the browser: they go out as attachments or as text inside JSON.
"""

from __future__ import annotations

import ipaddress

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
STATIC_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"
)
"""The same policy as a <meta> tag in an exported site (frame-ancestors cannot be set there)."""
FILE_CSP = "default-src 'none'; sandbox"
"""For downloads: even if a browser chose to render one, it gets no script and an opaque origin."""

HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_allowed(header: str | None, port: int) -> bool:
    """The Host header must name this loopback server: a DNS-rebinding page cannot read the API."""
    if not header:
        return False
    allowed = {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    return header.lower() in allowed
