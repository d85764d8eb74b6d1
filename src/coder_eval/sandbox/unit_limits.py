"""Memory, CPU and PID limits for a bubblewrap unit: a cgroup of its own where the machine lets us
create one, `prlimit` otherwise.

With cgroups (v2, or v1's memory/cpu/pids hierarchies) every process of the unit, the holder's
namespace and each command or agent entering it, joins the unit's cgroup before it runs: the
limits bind for the unit as a whole, and the cgroup is emptied (killed) and removed when the unit
finishes. Without them, `prlimit` sets per-process limits instead: `max_memory_mb` becomes the
address-space limit of each process, `max_pids` the process-count limit of its user (which root
ignores), and `max_cpus` has no equivalent.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import uuid
from functools import lru_cache
from pathlib import Path

from coder_eval.common.host_tools import find_host_tool, host_tool
from coder_eval.models.sandbox import ResourceLimits

CGROUP_ROOT = Path("/sys/fs/cgroup")
CFS_PERIOD_US = 100_000

# joins every cgroup.procs file named before `--`, then runs the rest
JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


class UnitLimits:
    """The limits of one unit: `prefix()` goes before every command line that starts inside.

    Memory, CPU and process limits use the task's values, else the defaults, where a cgroup binds
    them for the unit as a whole. Without a cgroup, `prlimit` takes over only the values the task
    set itself: a default address-space cap would break runtimes that reserve large virtual
    ranges (V8, the JVM), and RLIMIT_NPROC counts every process of the host user. The largest file
    size (RLIMIT_FSIZE, at `max_disk_mb`) binds through prlimit for every process, always.
    """

    def __init__(self, limits: ResourceLimits, *, defaults: bool = True) -> None:
        self.limits = limits
        own = set(limits.set_by_task())
        # the memory and process defaults guard against an agent; without one, only the task's own values
        self.memory = _int(limits.effective("max_memory_mb") if defaults or "max_memory_mb" in own else None)
        self.pids = _int(limits.effective("max_pids") if defaults or "max_pids" in own else None)
        self.cpus = limits.max_cpus
        self.disk = _int(limits.effective("max_disk_mb"))
        self.dirs: list[Path] = []
        if self.memory or self.cpus or self.pids:
            self.dirs = _make_cgroup(self.memory, self.cpus, self.pids, f"coder-eval-{uuid.uuid4().hex[:12]}")

    @property
    def active(self) -> bool:
        return bool(self.dirs or self._prlimit_flags())

    def enforced(self) -> dict[str, str]:
        """Each limit in force and how: the unit's record says what held."""
        out: dict[str, str] = {}
        by_task = set(self.limits.set_by_task())
        for name, value in (("max_memory_mb", self.memory), ("max_pids", self.pids), ("max_cpus", self.cpus)):
            if value is None:
                continue
            if self.dirs:
                out[name] = f"{value:g} (cgroup)"
            elif name in by_task and name != "max_cpus" and find_host_tool("prlimit"):
                out[name] = f"{value:g} (prlimit, per process)"
            else:
                out[name] = f"{value:g} not enforced (no cgroup can be created here)"
        if self.disk:
            out["max_disk_mb"] = f"{self.disk} (file size limit and disk watch)"
        return out

    def _prlimit_flags(self) -> list[str]:
        flags = []
        by_task = set(self.limits.set_by_task())
        if not self.dirs:
            if self.memory and "max_memory_mb" in by_task:
                flags.append(f"--as={self.memory * 1024 * 1024}")
            if self.pids and "max_pids" in by_task:
                flags.append(f"--nproc={self.pids}")
        return flags

    def prefix(self) -> list[str]:
        out: list[str] = []
        if self.dirs:
            out += [host_tool("sh"), "-c", JOIN, "sh", *(str(d / "cgroup.procs") for d in self.dirs), "--"]
        flags = self._prlimit_flags()
        prlimit = find_host_tool("prlimit") if flags else None
        if prlimit is not None:
            out += [prlimit, *flags, "--"]
        return out

    def close(self) -> None:
        """Kill whatever is still in the cgroup, then remove it.

        The kernel may take a few milliseconds to empty a cgroup after its processes are killed;
        a unit does not wait for that: what cannot be removed at once is left to a sweeper thread.
        """
        _kill_members(self.dirs)
        self.dirs = [d for d in self.dirs if not _removed(d)]
        if self.dirs:
            _SWEEPER.add(self.dirs)
            self.dirs = []


def _kill_members(dirs: list[Path]) -> None:
    for pid in {p for d in dirs for p in _procs(d)}:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


class _Sweeper:
    """Removes the cgroups of finished units once the kernel has emptied them (one thread, on demand)."""

    def __init__(self) -> None:
        self.pending: list[tuple[float, Path]] = []
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def add(self, dirs: list[Path]) -> None:
        with self.lock:
            self.pending += [(time.monotonic() + 30, d) for d in dirs]
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._loop, name="cgroup sweeper", daemon=True)
                self.thread.start()

    def _loop(self) -> None:
        while True:
            time.sleep(0.02)
            with self.lock:
                pending, self.pending = self.pending, []
            left = []
            for give_up, directory in pending:
                _kill_members([directory])
                if not _removed(directory) and time.monotonic() < give_up:
                    left.append((give_up, directory))
            with self.lock:
                self.pending = left + self.pending
                if not self.pending:
                    self.thread = None
                    return

    def drain(self, timeout: float = 5.0) -> None:
        """Wait (bounded) until every handed-over cgroup is gone (the end of a run)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if not self.pending:
                    return
            time.sleep(0.02)


_SWEEPER = _Sweeper()


def drain_cgroups() -> None:
    _SWEEPER.drain()


def _procs(directory: Path) -> list[int]:
    try:
        return [int(p) for p in (directory / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _removed(directory: Path) -> bool:
    try:
        directory.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


@lru_cache(maxsize=1)
def cgroups_available() -> bool:
    """Whether this harness may create a cgroup for a unit (tried once: made and removed at once)."""
    dirs = _make_cgroup(64, None, 64, f"coder-eval-probe-{uuid.uuid4().hex[:12]}")
    for directory in dirs:
        _removed(directory)
    return bool(dirs)


def unenforced(limits: ResourceLimits) -> list[str]:
    """How the limits a task set will bind under bubblewrap when no cgroup can be made (for `plan`)."""
    if cgroups_available():
        return []
    notes = []
    for name in limits.set_by_task():
        if name == "max_cpus":
            notes.append("max_cpus is not enforced (no cgroup can be created here)")
        elif name in ("max_memory_mb", "max_pids"):
            notes.append(f"{name} binds each process, not the unit as a whole (prlimit; no cgroup here)")
    return notes


def _int(value: float | None) -> int | None:
    return None if value is None else int(value)


def _settings(memory: int | None, cpus: float | None, pids: int | None, v2: bool) -> dict[str, dict[str, str]]:
    """{controller: {file: value}} for the limits that are set."""
    out: dict[str, dict[str, str]] = {}
    if memory:
        size = str(memory * 1024 * 1024)
        out["memory"] = {"memory.max": size} if v2 else {"memory.limit_in_bytes": size}
    if pids:
        out["pids"] = {"pids.max": str(pids)}
    if cpus:
        quota = str(max(1000, int(cpus * CFS_PERIOD_US)))
        out["cpu"] = (
            {"cpu.max": f"{quota} {CFS_PERIOD_US}"}
            if v2
            else {"cpu.cfs_period_us": str(CFS_PERIOD_US), "cpu.cfs_quota_us": quota}
        )
    return out


def _make_cgroup(memory: int | None, cpus: float | None, pids: int | None, name: str) -> list[Path]:
    """The unit's cgroup directories (one on v2, one per controller on v1); [] when we may not create them."""
    v2 = (CGROUP_ROOT / "cgroup.controllers").is_file()
    made: list[Path] = []
    try:
        for controller, files in _settings(memory, cpus, pids, v2).items():
            base = CGROUP_ROOT if v2 else CGROUP_ROOT / controller
            directory = base / name
            if directory not in made:
                directory.mkdir()
                made.append(directory)
            for file, value in files.items():
                (directory / file).write_text(value)
    except OSError:
        for directory in made:
            _removed(directory)
        return []
    return made
