"""A run's process lifetime: SIGTERM and SIGHUP stop it the way Ctrl-C does, and nothing outlives it.

CI cancels a job with SIGTERM, a closed terminal sends SIGHUP. Both are turned into the same
path as SIGINT (the running units are cancelled, their sandboxes finished, the records already
written kept, run.json written with `interrupted: true`), and the process exits 128 + the
signal's number (143 for SIGTERM, 129 for SIGHUP, 130 for Ctrl-C).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

from coder_eval.common.reaper import become_subreaper, kill_unit_leftovers

_received: list[int] = []


def interrupt_exit_code() -> int:
    """The exit status for an interrupted command: 128 + the first signal that stopped it."""
    return 128 + (_received[0] if _received else int(signal.SIGINT))


def _like_sigint(signum: int, frame: FrameType | None) -> None:
    first = not _received
    _received.append(signum)
    if not first:
        return  # the first one is already unwinding the run; let its clean-up finish
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(int(signal.SIGINT), frame)  # asyncio's handler cancels the main task; the default raises
    else:
        raise KeyboardInterrupt


@contextlib.contextmanager
def run_lifetime() -> Iterator[None]:
    """Around a whole run: adopt orphans, treat SIGTERM/SIGHUP like SIGINT, kill every leftover at the end."""
    _received.clear()
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        become_subreaper()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            previous[sig] = signal.signal(sig, _like_sigint)
    try:
        yield
    finally:
        try:
            kill_unit_leftovers()
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
