"""The host half of a unit's way to its gateway route when its namespace has no network.

A Unix socket in the unit's private directory (bound into the namespace or container) accepts
connections from the holder's relay inside and forwards each to one loopback TCP port on the
host: the gateway's. Only that unit's namespace sees its socket, and only the gateway port is
reachable through it; which route a request uses is still decided by the token in its URL.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path

INNER_PORT = 41414
"""The loopback port the relay listens on inside a network-less unit."""


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            with contextlib.suppress(OSError):
                s.shutdown(how)


class SocketBridge:
    """Accept on a Unix socket, forward to 127.0.0.1:<target> (set with `point_at`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.target: int | None = None
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        path.chmod(0o666)  # the namespace's user may map to another uid
        self._server.listen(64)
        self._closed = False
        threading.Thread(target=self._accept, name=f"bridge {path.name}", daemon=True).start()

    def point_at(self, port: int) -> None:
        self.target = port

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        if self.target is None:
            client.close()
            return
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target), timeout=10)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
        back.start()
        _pump(client, upstream)
        back.join()
        client.close()
        upstream.close()

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        self.path.unlink(missing_ok=True)
