"""Process lifetime beyond process groups: a subreaper for the harness and per-unit tags.

A process group is not enough to find everything a unit started: a child may call `setsid`,
or fork twice so its parent exits. Two mechanisms close that gap:

- `become_subreaper()` marks the harness a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`), so
  orphans are re-parented to the harness instead of to init; `kill_descendants()` then reaches
  every process the run ever started, however it detached.
- Each unit's environment carries `UNIT_TAG_VAR=<tag>`; `kill_tagged(tag)` ends every process of
  this user whose environment still holds that tag (a detached daemon inherits it), so one unit
  can be cleaned up while others keep running.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import secrets
import signal
import time

from coder_eval.common.process_tree import children_map, descendants, read_proc, send

UNIT_TAG_VAR = "CODER_EVAL_UNIT_TAG"
_PR_SET_CHILD_SUBREAPER = 36


_subreaper = [False]


def become_subreaper() -> bool:
    """Make this process adopt orphaned descendants. False where the kernel does not offer it."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        _subreaper[0] = int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
    return _subreaper[0]


def _children(pid: int) -> list[int] | None:
    """Direct children of `pid` from /proc/PID/task/*/children; None where the kernel lacks it."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for tid in tids:
        try:
            found += [int(c) for c in read_proc(f"/proc/{pid}/task/{tid}/children").split()]
        except FileNotFoundError:
            return None
        except OSError:
            continue
    return found


def children_of(pid: int) -> list[int]:
    """Direct children of `pid` (zombies included); [] where the kernel cannot list them."""
    return _children(pid) or []


def own_descendants() -> set[int] | None:
    """Every process below this one, walking only our own subtree; None if that cannot be read."""
    return subtree(os.getpid())


def subtree(root: int) -> set[int] | None:
    """Every process below `root` (all its threads' children, recursively); None if that cannot be read."""
    found: set[int] = set()
    todo = [root]
    while todo:
        kids = _children(todo.pop())
        if kids is None:
            return None
        fresh = [k for k in kids if k not in found]
        found.update(fresh)
        todo += fresh
    return found


def new_tag() -> str:
    return f"u{os.getpid()}-{secrets.token_hex(8)}"


def _has(data: bytes, entry: bytes) -> bool:
    return data.startswith(entry) or b"\0" + entry in data


def tagged(tag: str | None, among: set[int] | None = None) -> set[int]:
    """Live processes of this user whose environment holds `UNIT_TAG_VAR=tag` (any tag when None)."""
    entry = f"{UNIT_TAG_VAR}={tag}\0".encode() if tag is not None else f"{UNIT_TAG_VAR}=".encode()
    me = os.getpid()
    found: set[int] = set()
    if among is None:
        try:
            among = {int(n) for n in os.listdir("/proc") if n.isdigit()}
        except OSError:
            return found
    for pid in among:
        if pid == me:
            continue
        try:
            data = read_proc(f"/proc/{pid}/environ") + b"\0"
        except OSError:  # gone, or another user's
            continue
        if _has(data, entry):
            found.add(pid)
    return found


def _stop_and_kill(pids: set[int]) -> set[int]:
    """Stop first (nothing forks between scan and kill), add their descendants, then SIGKILL all."""
    for pid in pids:
        send(pid, signal.SIGSTOP)
    everything = pids | descendants(*pids, tree=children_map()) if pids else set()
    for pid in everything:
        send(pid, signal.SIGKILL)
    return everything


def reap(pids: set[int]) -> None:
    """Collect the exit status of killed processes that are our direct children.

    Only call this when nothing else waits for them (a `Popen.wait` whose child we reaped would
    see a made-up exit status): after a unit's commands and agent have returned, or at run end.
    """
    me = os.getpid()
    deadline = time.monotonic() + 1.0
    pending = {p for p in pids if _parent(p) == me}
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            if _state(pid) in ("Z", ""):
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)
                pending.discard(pid)
        if pending:
            time.sleep(0.01)


def _stat_fields(pid: int) -> list[bytes]:
    try:
        raw = read_proc(f"/proc/{pid}/stat")
    except OSError:
        return []
    return raw.rsplit(b")", 1)[-1].split()


def _state(pid: int) -> str:
    fields = _stat_fields(pid)
    return fields[0].decode() if fields else ""


def _parent(pid: int) -> int:
    fields = _stat_fields(pid)
    return int(fields[1]) if len(fields) > 1 else 0


def kill_tagged(tag: str) -> set[int]:
    """SIGKILL every process carrying `tag` (and what they started); returns the pids killed."""
    killed: set[int] = set()
    for _ in range(5):  # a process may fork while we scan; a few rounds settle it
        # With the subreaper set every process a unit started (detached or not) is below us, so
        # only our own subtree needs reading; otherwise every process of this user is checked.
        among = own_descendants() if _subreaper[0] else None
        pids = tagged(tag, among=among) - killed
        if not pids:
            break
        killed |= _stop_and_kill(pids)
    return killed


def kill_unit_leftovers() -> set[int]:
    """SIGKILL every process below this one that was started for a unit (it carries a unit tag).

    With the subreaper set that includes detached daemons of units already finished. Processes
    below us without a tag (a test harness's own servers, say) are left alone.
    """
    pids = tagged(None, among=descendants(os.getpid()))
    killed = _stop_and_kill(pids) if pids else set()
    reap(killed)
    return killed
