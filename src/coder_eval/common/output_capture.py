"""A command's output, read from pipes into a bounded head-and-tail buffer: nothing goes to disk.

`run_process` gives each command a pipe for stdout and one for stderr and reads both while the
command runs. `Capture` keeps the first half of the cap and the last half, and counts (then drops)
everything between, so a 2 GB print costs the harness a few hundred kilobytes of memory and no
temporary file. A background child (a daemon started with `&`) may still hold a pipe's write end
when the command itself has exited: the call does not wait for it. Its pipes are handed to
`drain_in_background`, one daemon thread that reads and discards until every writer has gone, so
the child neither blocks on a full pipe nor dies of SIGPIPE because the harness stopped listening.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from collections import deque

READ_BYTES = 64 * 1024


class Capture:
    """The first `cap // 2` and the last `cap - cap // 2` bytes of a stream, and how many came in all."""

    def __init__(self, cap: int) -> None:
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_len = 0
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        if len(data) >= self.tail_cap:
            self.tail.clear()
            self.tail.append(data[-self.tail_cap :] if self.tail_cap else b"")
            self.tail_len = min(len(data), self.tail_cap)
            return
        self.tail.append(data)
        self.tail_len += len(data)
        while self.tail_len > self.tail_cap:
            extra = self.tail_len - self.tail_cap
            first = self.tail[0]
            if len(first) <= extra:
                self.tail.popleft()
                self.tail_len -= len(first)
            else:
                self.tail[0] = first[extra:]
                self.tail_len -= extra

    def text(self) -> tuple[str, int]:
        """The captured text (decoded, bad bytes replaced) and how many bytes were cut from its middle."""
        tail = b"".join(self.tail)
        cut = self.total - len(self.head) - len(tail)
        head = self.head.decode("utf-8", errors="replace")
        if cut <= 0:
            return (bytes(self.head) + tail).decode("utf-8", errors="replace"), 0
        return head + f"\n... [truncated {cut} bytes] ...\n" + tail.decode("utf-8", errors="replace"), cut


def read_available(fd: int, capture: Capture) -> bool:
    """Read what `fd` (non-blocking) holds now into `capture`; False once it reached end of file."""
    while True:
        try:
            data = os.read(fd, READ_BYTES)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not data:
            return False
        capture.add(data)


class _Drainer:
    """One daemon thread that reads and discards the pipes of commands whose background children
    still write to them, closing each at end of file."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fds: set[int] = set()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._thread: threading.Thread | None = None

    def add(self, fds: list[int]) -> None:
        with self._lock:
            self._fds.update(fds)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="output-drainer", daemon=True)
                self._thread.start()
        os.write(self._wake_w, b"x")

    def _run(self) -> None:
        while True:
            with self._lock:
                fds = list(self._fds)
            poller = select.poll()
            poller.register(self._wake_r, select.POLLIN)
            for fd in fds:
                poller.register(fd, select.POLLIN)
            for fd, _ in poller.poll():
                if fd == self._wake_r:
                    with contextlib.suppress(BlockingIOError):
                        os.read(self._wake_r, 4096)
                elif not _discard(fd):
                    with self._lock:
                        self._fds.discard(fd)
                    os.close(fd)

    def held(self) -> int:
        """How many pipes are being drained (for tests and interrupt cleanup)."""
        with self._lock:
            return len(self._fds)


def _discard(fd: int) -> bool:
    try:
        while os.read(fd, READ_BYTES):
            pass
        return False  # end of file: every writer has gone
    except BlockingIOError:
        return True
    except OSError:
        return False


_DRAINER = _Drainer()


def drain_in_background(fds: list[int]) -> None:
    """Keep reading (and discarding) `fds`, non-blocking pipe read ends, until their writers are gone."""
    if fds:
        _DRAINER.add(fds)


def pipes_draining() -> int:
    return _DRAINER.held()
