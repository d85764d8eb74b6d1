"""Bedrock's streamed answer (AWS event-stream frames) as the Anthropic server-sent events an agent reads.

`invoke-with-response-stream` answers `application/vnd.amazon.eventstream`: binary frames, each
`total length | headers length | prelude CRC | headers | payload | message CRC` (big-endian
32-bit numbers). A `chunk` event's payload is `{"bytes": "<base64>"}` holding one Anthropic
streaming event as JSON; an exception carries its type in the `:exception-type` header and a
`message`. Each becomes `event: <type>` / `data: <json>`, the stream the Messages API sends.
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import AsyncIterator

_PRELUDE = 12
_CRC = 4


def _headers(data: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    i = 0
    while i < len(data):
        size = data[i]
        name = data[i + 1 : i + 1 + size].decode("utf-8", "replace")
        i += 1 + size
        kind = data[i]
        i += 1
        if kind == 7:  # string
            (length,) = struct.unpack(">H", data[i : i + 2])
            out[name] = data[i + 2 : i + 2 + length].decode("utf-8", "replace")
            i += 2 + length
        else:  # other value types carry nothing the translation needs; skip by their fixed sizes
            i += {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}.get(kind, 0)
            if kind == 6:
                (length,) = struct.unpack(">H", data[i : i + 2])
                i += 2 + length
    return out


def frame_to_sse(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream frame as an SSE event (empty for frames that carry no event)."""
    if headers.get(":message-type") == "exception":
        try:
            message = str(json.loads(payload).get("message", ""))
        except (ValueError, AttributeError):
            message = payload.decode("utf-8", "replace")
        error = {"type": "error", "error": {"type": headers.get(":exception-type", "api_error"), "message": message}}
        return f"event: error\ndata: {json.dumps(error)}\n\n".encode()
    if headers.get(":event-type") != "chunk":
        return b""
    try:
        event = json.loads(base64.b64decode(json.loads(payload)["bytes"]))
    except (ValueError, KeyError, TypeError):
        return b""
    kind = event.get("type", "message") if isinstance(event, dict) else "message"
    return f"event: {kind}\ndata: {json.dumps(event)}\n\n".encode()


class EventStreamDecoder:
    """Feed bytes as they arrive; get back the SSE bytes of every complete frame."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> bytes:
        self._buffer += data
        out = b""
        while len(self._buffer) >= _PRELUDE:
            total, header_length = struct.unpack(">II", self._buffer[:8])
            if total < _PRELUDE + _CRC or len(self._buffer) < total:
                break
            frame, self._buffer = self._buffer[:total], self._buffer[total:]
            headers = _headers(frame[_PRELUDE : _PRELUDE + header_length])
            out += frame_to_sse(headers, frame[_PRELUDE + header_length : total - _CRC])
        return out


async def translate(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """The SSE stream of an event-stream body, chunk by chunk as frames complete."""
    decoder = EventStreamDecoder()
    async for chunk in chunks:
        out = decoder.feed(chunk)
        if out:
            yield out
