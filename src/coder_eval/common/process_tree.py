"""Find and kill process trees through /proc, including children that left their process group."""

from __future__ import annotations

import contextlib
import os
import signal


def read_proc(path: str) -> bytes:
    """The whole of a /proc file, read with bare system calls (raises OSError when it is gone).

    /proc is read several times per unit to find its processes; an ordinary buffered `open`
    costs three more system calls per file (fstat, an isatty ioctl, lseek) and the Python
    objects around them.
    """
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def cmdline(pid: int) -> str:
    """The command line of `pid` ("" when it is gone or unreadable)."""
    try:
        return read_proc(f"/proc/{pid}/cmdline").replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def children_map() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc (empty where there is no /proc)."""
    tree: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return tree
    for name in names:
        if not name.isdigit():
            continue
        try:
            raw = read_proc(f"/proc/{name}/stat")
        except OSError:
            continue
        fields = raw.rsplit(b")", 1)[-1].split()
        if len(fields) > 1:
            tree.setdefault(int(fields[1]), []).append(int(name))
    return tree


def descendants(*roots: int, tree: dict[int, list[int]] | None = None) -> set[int]:
    """Every process below `roots` (not the roots themselves)."""
    tree = children_map() if tree is None else tree
    found: set[int] = set()
    todo = list(roots)
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found - set(roots)


def send(pid: int, sig: signal.Signals, *, group: bool = False) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        (os.killpg if group else os.kill)(pid, sig)


def kill_tree(root: int, *, with_descendants: bool) -> None:
    """SIGKILL `root`'s process group and, with `with_descendants`, every process below `root`.

    Everything is stopped first, so nothing forks a child between the scan and the kill.
    """
    send(root, signal.SIGSTOP, group=True)
    stopped: set[int] = set()
    for _ in range(20 if with_descendants else 0):  # a few rounds settle it: stopped processes cannot fork
        pending = descendants(root, *stopped) - stopped
        if not pending:
            break
        for pid in pending:
            send(pid, signal.SIGSTOP)
        stopped |= pending
    send(root, signal.SIGKILL, group=True)
    for pid in stopped:
        send(pid, signal.SIGKILL)
