"""Programs the harness itself runs on the host, found once and by absolute path.

A unit's PATH starts with directories the agent can write (`cli_mocks/`, `mock_path_dirs`, the
sandbox venv's `bin/`, `node_modules/.bin`). `subprocess` looks a bare program name up in the PATH
of the environment it is given, so starting `nsenter` or `docker` by name with a unit's
environment would run whatever the agent put there, on the host. Every program the harness starts
to enter, drive or grade a unit is therefore resolved here, from the harness's own PATH as it was
when Coder Eval started, to the real file behind it (symlinks resolved, so the path also means the
same thing inside a sandbox that binds `/usr` but recreates `/bin` as a link).

A program is only accepted from a place no unit can write: an absolute PATH entry whose file and
directory are owned by root or by the harness's own user and writable by no one else.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

_STARTUP_PATH = os.environ.get("PATH", "")
"""The harness's PATH when Coder Eval was imported: later changes (and units' PATHs) do not count."""

FALLBACK_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")

_lock = threading.Lock()
_found: dict[str, str | None] = {}


class HostToolMissingError(LookupError):
    """A program the harness needs is not installed where the harness may run it from."""


def _trusted(path: Path) -> bool:
    """Owned by root or by us, and writable by nobody else (the file and its directory)."""
    me = os.geteuid()
    for item in (path, path.parent):
        try:
            info = item.stat()
        except OSError:
            return False
        if info.st_uid not in (0, me) or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
    return True


def _search(name: str, path: str) -> str | None:
    entries = [e for e in path.split(os.pathsep) if e]
    for entry in [*entries, *FALLBACK_DIRS]:
        if not os.path.isabs(entry):
            continue  # "." or a relative entry would mean the current directory, which may be a unit's
        candidate = Path(entry) / name
        try:
            real = Path(os.path.realpath(candidate))
            if real.is_file() and os.access(real, os.X_OK) and _trusted(real):
                return str(real)
        except OSError:  # a PATH entry this user may not enter
            continue
    return None


def find_host_tool(name: str) -> str | None:
    """The absolute, symlink-free path of `name` (None when it is not installed in a trusted place)."""
    with _lock:
        if name not in _found:
            _found[name] = _search(name, _STARTUP_PATH)
        return _found[name]


def host_tool(name: str) -> str:
    """Like `find_host_tool`, but a missing program raises HostToolMissingError naming it."""
    found = find_host_tool(name)
    if found is None:
        raise HostToolMissingError(
            f"{name} is needed but was not found in a trusted directory of the harness's PATH "
            "(owned by root or by you, not writable by others)"
        )
    return found


def trusted_path() -> str:
    """A PATH for programs the harness starts on the host: its start-up PATH, absolute entries only."""
    entries = [e for e in _STARTUP_PATH.split(os.pathsep) if os.path.isabs(e)]
    return os.pathsep.join(dict.fromkeys([*entries, *FALLBACK_DIRS]))


def forget() -> None:
    """Drop what was found (tests that install or remove programs)."""
    with _lock:
        _found.clear()


LOADER_VARIABLES = ("GCONV_PATH", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "NLSPATH", "RES_OPTIONS")
"""Variables the C library of a host program acts on (besides every LD_* and MALLOC_* name)."""


def loader_variable(name: str) -> bool:
    """Whether `name` changes how the dynamic loader or C library of any program behaves."""
    return name.startswith(("LD_", "MALLOC_")) or name in LOADER_VARIABLES or name.startswith("RESOLV_")


def split_loader_env(env: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(env without loader variables, the loader variables): the first is safe for host programs."""
    safe = {k: v for k, v in env.items() if not loader_variable(k)}
    return safe, {k: v for k, v in env.items() if loader_variable(k)}
