"""Cassettes: the recorded exchanges of record mode, served again byte for byte in replay mode.

One JSON file per exchange, `<cassette dir>/<route key>/<NNN>.json`, numbered in the order the
route made its calls. An entry keeps the request, the status, the content type and the body
exactly (UTF-8 text, else base64), plus the agent's working directory so that replay can move
recorded absolute paths onto the new run's sandbox.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from coder_eval.gateway.proxy import Exchange
from coder_eval.gateway.routes import ModelCall
from coder_eval.gateway.script import cwd_from_request


def cassette_dir_name(key: str) -> str:
    """The directory name of a route key's cassette: `/` becomes `__`."""
    name = key.replace("/", "__").replace("\\", "__")
    if name in ("", ".", ".."):
        raise ValueError(f"route key {key!r} cannot name a cassette directory")
    return name


def workdir_of(call: ModelCall) -> str | None:
    """The agent's working directory: the route's, else as the agent's prompt states it."""
    if call.route.workdir:
        return call.route.workdir
    return cwd_from_request(call.request) if call.request is not None else None


class CassetteStore:
    """The cassettes of one run, under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str, index: int) -> Path:
        """Where exchange `index` (1-based) of route `key` is kept."""
        return self.root / cassette_dir_name(key) / f"{index:03d}.json"

    def save(self, call: ModelCall, index: int, exchange: Exchange) -> None:
        """Write this exchange as cassette entry `index` of the route's key."""
        entry: dict[str, Any] = {
            "protocol": call.protocol.name,
            "provider": call.provider,
            "method": call.http.method,
            "path": call.path,
            "query": call.http.query_string,
            "request": call.body,
            "status": exchange.status,
            "content_type": exchange.content_type,
            "workdir": workdir_of(call),
            **_encode_body(exchange.body),
        }
        _write_json_atomic(self.path(call.route.key, index), entry)

    @staticmethod
    def load(path: Path) -> dict[str, Any] | None:
        """A cassette entry, or None when it is missing or unreadable."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None


def recorded_body(entry: dict[str, Any], call: ModelCall) -> bytes:
    """The response bytes of an entry, its recorded working directory moved onto this call's."""
    return rebase(_decode_body(entry), entry.get("workdir"), workdir_of(call))


def rebase(body: bytes, recorded: Any, current: str | None) -> bytes:
    """A recorded body with the recorded run's working directory replaced by this run's.

    Agents such as Claude Code write with absolute paths, so a cassette replayed as recorded
    would send the new run's tools into the old run's sandbox. Only a path that appears whole
    in the body is moved (a stream that splits it over several deltas keeps the old path).
    """
    if not isinstance(recorded, str) or not recorded or not current or recorded == current:
        return body
    moved = body.replace(recorded.encode("utf-8"), current.encode("utf-8"))
    escaped_old, escaped_new = json.dumps(recorded)[1:-1], json.dumps(current)[1:-1]
    if escaped_old != recorded:
        moved = moved.replace(escaped_old.encode("utf-8"), escaped_new.encode("utf-8"))
    return moved


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON so a reader never sees half a file (temp file in the same directory, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _encode_body(body: bytes) -> dict[str, str]:
    """A response body as cassette fields: text when it is UTF-8 (round-trips exactly), else base64."""
    try:
        return {"response_text": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"response_base64": base64.b64encode(body).decode("ascii")}


def _decode_body(entry: dict[str, Any]) -> bytes:
    """The response bytes of a cassette entry."""
    if isinstance(entry.get("response_base64"), str):
        return base64.b64decode(entry["response_base64"])
    text = entry.get("response_text", "")
    return text.encode("utf-8") if isinstance(text, str) else b""
