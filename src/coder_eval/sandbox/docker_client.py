"""The docker client as the harness runs it: its own program, its own configuration, never a unit's.

The client reads its configuration (`$DOCKER_CONFIG`, else `$HOME/.docker`: contexts, credential
helpers, proxies) and the daemon's address (`DOCKER_HOST`, `DOCKER_CONTEXT`) from its environment,
and looks credential helpers up on `PATH`. A unit's environment has the unit's writable HOME and a
PATH that starts with directories the agent can write, so the client is always started with the
harness's own values, captured when Coder Eval started. Variables meant for the inside of a
container travel in an env-file the harness writes (`docker exec --env-file`), so no value of a
unit's environment reaches the client's environment or a command line.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from coder_eval.common.host_tools import find_host_tool, host_tool, trusted_path

_CLIENT_NAMES = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_API_VERSION")
_STARTUP = {k: os.environ[k] for k in (*_CLIENT_NAMES, "DOCKER_CONFIG", "HOME") if k in os.environ}


def docker_binary() -> str | None:
    return find_host_tool("docker")


def docker() -> str:
    """The docker client, by absolute path (raises HostToolMissingError when it is not installed)."""
    return host_tool("docker")


def client_env() -> dict[str, str]:
    """The environment every docker client call gets: the harness's daemon address and configuration."""
    home = _STARTUP.get("HOME") or os.path.expanduser("~")
    env = {k: v for k, v in _STARTUP.items() if k in _CLIENT_NAMES}
    env["PATH"] = trusted_path()
    env["HOME"] = home
    env["DOCKER_CONFIG"] = _STARTUP.get("DOCKER_CONFIG") or os.path.join(home, ".docker")
    return env


def single_line(value: str) -> bool:
    """Whether an env-file line can carry `value` unchanged (docker splits lines and drops a trailing CR)."""
    return not any(c in value for c in "\n\r\0")


class EnvFiles:
    """The env-files of one unit's `docker exec` calls, in a private directory of the harness."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def flags(self, env: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
        """(`--env-file` and `-e NAME` flags, extra client variables) that give the inside exactly `env`.

        A value that does not fit on one line is passed by name (`-e NAME`) from the client's own
        environment instead; names the client itself reads never travel that way.
        """
        lines, by_name = [], {}
        for name in sorted(env):
            value = env[name]
            if single_line(value):
                lines.append(f"{name}={value}\n")
            elif name in _CLIENT_NAMES or name in ("PATH", "HOME", "DOCKER_CONFIG") or name.startswith("LD_"):
                raise ValueError(f"variable {name} has a multi-line value, which cannot reach a docker container")
            else:
                by_name[name] = value
        text = "".join(lines)
        path = self.directory / f"env-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
        if not path.exists():
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            partial = path.with_name(f"{path.name}.{os.getpid()}.{id(text)}")
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(partial, path)  # whole or absent, also when two commands write it at once
        flags = ["--env-file", str(path)]
        for name in by_name:
            flags += ["-e", name]
        return flags, by_name
