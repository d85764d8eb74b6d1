"""Processes of bubblewrap units, seen from the harness: collecting their zombies, listing a namespace's."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from coder_eval.common.process import pid_exits_within
from coder_eval.common.reaper import children_of, own_descendants, subtree


def reap_namespace_zombies() -> None:
    """Collect exited processes of unit namespaces re-parented to the harness: inits of throwaway set-up
    namespaces and of the probe, and processes entered with nsenter whose nsenter was killed.

    Only zombies that lived in another PID namespace are taken: no Popen of the harness waits for
    those (its children there are bwrap's and nsenter's outer processes). A namespace whose init is
    exiting waits until they are collected.
    """
    me = os.getpid()
    for child in children_of(me):
        try:
            status = Path(f"/proc/{child}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        zombie = fields.get("State", "").strip().startswith("Z")
        if zombie and len(fields.get("NSpid", "").split()) > 1 and fields.get("PPid", "").strip() == str(me):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, os.WNOHANG)


def reap_init(pid: int) -> None:
    """Collect the namespace's init once bwrap's outer process is gone.

    The outer process may exit first; the harness is a subreaper, so the init is then re-parented
    to it and, unreaped, would stay a zombie for the rest of the run (one per unit).
    """
    deadline = time.monotonic() + 5
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return  # not ours: bwrap reaped it, or init (not a subreaper) adopted it
        if done:
            return
        reap_namespace_zombies()  # the init waits for its namespace's zombies that were re-parented to us
        if time.monotonic() > deadline:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
        pid_exits_within(pid, 0.005)  # returns as soon as the init exits


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def descendants(pid: int) -> list[int]:
    out, pending = [], [pid]
    while pending:
        kids = children(pending.pop())
        out += kids
        pending += kids
    return out


def in_namespace(pid_ns: str, init: int) -> list[int]:
    """Host pids of every process in the PID namespace `pid_ns` (a /proc/<pid>/ns/pid link).

    They are all below its `init` (orphans inside are re-parented to it, never to a subreaper
    outside) or below the harness (commands and agents entering with nsenter), so only those two
    subtrees are read; where the kernel cannot list children, every process is checked.
    """
    inside = subtree(init)
    ours = own_descendants()
    if inside is None or ours is None:
        candidates = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    else:
        candidates = sorted(inside | ours)
    found = []
    for pid in candidates:
        try:
            if os.readlink(f"/proc/{pid}/ns/pid") == pid_ns:
                found.append(pid)
        except OSError:
            continue
    return found
