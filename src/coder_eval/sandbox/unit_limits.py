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
import time
import uuid
from pathlib import Path

from coder_eval.common.host_tools import find_host_tool, host_tool
from coder_eval.models.sandbox import ResourceLimits

CGROUP_ROOT = Path("/sys/fs/cgroup")
CFS_PERIOD_US = 100_000

# joins every cgroup.procs file named before `--`, then runs the rest
JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


class UnitLimits:
    """The limits of one unit: `prefix()` goes before every command line that starts inside."""

    def __init__(self, limits: ResourceLimits) -> None:
        self.limits = limits
        self.dirs: list[Path] = []
        wanted = limits.max_memory_mb or limits.max_cpus or limits.max_pids
        if wanted:
            self.dirs = _make_cgroup(limits, f"coder-eval-{uuid.uuid4().hex[:12]}")

    @property
    def active(self) -> bool:
        return bool(self.limits.max_memory_mb or self.limits.max_cpus or self.limits.max_pids)

    def prefix(self) -> list[str]:
        if not self.active:
            return []
        if self.dirs:
            return [host_tool("sh"), "-c", JOIN, "sh", *(str(d / "cgroup.procs") for d in self.dirs), "--"]
        prlimit = find_host_tool("prlimit")
        if prlimit is None:
            return []
        flags = []
        if self.limits.max_memory_mb:
            flags.append(f"--as={self.limits.max_memory_mb * 1024 * 1024}")
        if self.limits.max_pids:
            flags.append(f"--nproc={self.limits.max_pids}")
        return [prlimit, *flags, "--"] if flags else []

    def close(self) -> None:
        """Kill whatever is still in the cgroup, then remove it."""
        for _ in range(50):
            pids = {p for d in self.dirs for p in _procs(d)}
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            self.dirs = [d for d in self.dirs if not _removed(d)]
            if not self.dirs:
                return
            time.sleep(0.02)


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


def _settings(limits: ResourceLimits, v2: bool) -> dict[str, dict[str, str]]:
    """{controller: {file: value}} for the limits that are set."""
    out: dict[str, dict[str, str]] = {}
    if limits.max_memory_mb:
        size = str(limits.max_memory_mb * 1024 * 1024)
        out["memory"] = {"memory.max": size} if v2 else {"memory.limit_in_bytes": size}
    if limits.max_pids:
        out["pids"] = {"pids.max": str(limits.max_pids)}
    if limits.max_cpus:
        quota = str(max(1000, int(limits.max_cpus * CFS_PERIOD_US)))
        out["cpu"] = (
            {"cpu.max": f"{quota} {CFS_PERIOD_US}"}
            if v2
            else {"cpu.cfs_period_us": str(CFS_PERIOD_US), "cpu.cfs_quota_us": quota}
        )
    return out


def _make_cgroup(limits: ResourceLimits, name: str) -> list[Path]:
    """The unit's cgroup directories (one on v2, one per controller on v1); [] when we may not create them."""
    v2 = (CGROUP_ROOT / "cgroup.controllers").is_file()
    made: list[Path] = []
    try:
        for controller, files in _settings(limits, v2).items():
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
