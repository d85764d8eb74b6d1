"""How a bubblewrap unit's user namespace is built and entered, so that nothing in it holds privilege.

Requirements (docs/security.md): every process of a unit (the agent, its children, criteria,
hooks) runs as uid 1000 with no capabilities and `no_new_privs`, cannot change the mounts the
harness set up (no remount, no umount), and cannot create a user namespace of its own in which it
would hold capabilities again. bubblewrap builds the namespaces; the harness enters them with
`nsenter` for every later command. Entering a user namespace gives the entering process every
capability *in that namespace*, so where the unit's processes live, and who owns the mount
namespace, decides what an entered process can do. Two schemes, one per kind of harness:

**The harness is root (`MappedUserns`).** bwrap runs as root, waits (`--userns-block-fd`) while
the harness writes the user namespace's maps itself: uid/gid 0 ↔ host 0 (bwrap's own set-up
identity, which is why it can still bind paths under `/root`), and 1000 ↔ the dedicated unit user
(see unit_user.py). The harness then sets the namespace's `user.max_user_namespaces` to 0, so no
process inside can create a user namespace. Every process enters as 1000 (`nsenter -S 1000
-G 1000`); changing uid away from the namespace's root drops every capability, `setpriv
--no-new-privs` makes sure nothing regains one (setuid binaries, file capabilities), and the
mounts belong to a namespace in which no unit process is root.

**The harness is an ordinary user (`NestedUserns`).** An unprivileged user can map only itself,
so bwrap's own nesting is used: `--disable-userns` sets up the mounts in an outer user namespace
(U1, where the harness's user is root), then moves the sandbox into a nested one (U2) whose only
uid is 1000, and leaves U1 unable to hold another namespace. Entering U2 directly fails (the
mount namespace belongs to U1, where a process of U2 holds nothing), so a command enters U1 and
every other namespace first, then the nested U2 from inside (the second `nsenter`, read from the
read-only `/usr`), and only then runs. The harness keeps a descriptor of U1 open per unit
(`NS_GET_PARENT` on U2) and names it as `/proc/<harness>/fd/<n>`.

Neither scheme lets a unit process `ptrace` an entering command in its privileged instant:
ptrace across user namespaces needs CAP_SYS_PTRACE in the target's namespace.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
from abc import ABC, abstractmethod
from typing import IO

from coder_eval.common.host_tools import host_tool
from coder_eval.sandbox.templates import SetupError
from coder_eval.sandbox.unit_user import INSIDE_GID, INSIDE_UID, UnitUser

NS_GET_PARENT = 0xB702
START_TIMEOUT = 30.0


def read_info(stream: IO[bytes]) -> dict[str, object]:
    """bwrap's --info-fd document: it is written once, before the sandbox runs (may arrive in pieces)."""
    data = b""
    while not data.rstrip().endswith(b"}"):
        chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
        if not chunk:
            break
        data += chunk
    try:
        found = json.loads(data.decode() or "{}")
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return found if isinstance(found, dict) else {}


class UnitUserns(ABC):
    """One unit's user-namespace scheme: bwrap flags, the step after bwrap starts, the way in."""

    def __init__(self, user: UnitUser) -> None:
        self.user = user
        self.child = 0

    @abstractmethod
    def bwrap_flags(self, block_fd: int | None) -> list[str]:
        """Flags for the unit's holder namespace."""

    @property
    def needs_block_fd(self) -> bool:
        return False

    def holder_prefix(self) -> list[str]:
        """What the holder's own command starts with (it must end up as uid 1000 too)."""
        return []

    def started(self, child: int, release: int | None) -> None:
        """bwrap reported its sandbox process `child`; finish the namespace, then let bwrap go on."""
        self.child = child

    @abstractmethod
    def enter_argv(self) -> list[str]:
        """The command line that puts what follows it inside the unit, as uid 1000 without capabilities."""

    def close(self) -> None:  # noqa: B027 - most schemes hold nothing
        """Release what the scheme holds for the unit."""


def set_up_flags() -> list[str]:
    """Throwaway set-up namespaces (uv, npm): uid 1000 without capabilities, no nested user namespaces.

    Set-up runs the task author's own installs as the harness's host user (root's bwrap maps 1000
    to root), so they can fill the workspace and the harness's package cache; the harness hands the
    workspace to the unit's user afterwards.
    """
    return [
        "--unshare-user",
        "--uid",
        str(INSIDE_UID),
        "--gid",
        str(INSIDE_GID),
        "--cap-drop",
        "ALL",
        "--disable-userns",
    ]


class MappedUserns(UnitUserns):
    """Root harness: maps written by the harness, 1000 ↔ the unit's host user."""

    @property
    def needs_block_fd(self) -> bool:
        return True

    def bwrap_flags(self, block_fd: int | None) -> list[str]:
        assert block_fd is not None
        # With maps written from outside bwrap keeps uid 0 for the sandbox's command, so the holder
        # keeps the two capabilities that let it become 1000 itself (holder_prefix), and loses them there.
        flags = ["--unshare-user", "--uid", str(INSIDE_UID), "--gid", str(INSIDE_GID), "--cap-drop", "ALL"]
        flags += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        return [*flags, "--userns-block-fd", str(block_fd)]

    def holder_prefix(self) -> list[str]:
        ids = ["--reuid", str(INSIDE_UID), "--regid", str(INSIDE_GID), "--clear-groups", "--inh-caps=-all"]
        return [host_tool("setpriv"), *ids, "--no-new-privs", "--"]

    def started(self, child: int, release: int | None) -> None:
        super().started(child, release)
        try:
            for kind, outside in (("uid", self.user.uid), ("gid", self.user.gid)):
                with open(f"/proc/{child}/{kind}_map", "w") as fh:
                    fh.write(f"0 0 1\n{INSIDE_UID if kind == 'uid' else INSIDE_GID} {outside} 1\n")
            # no user namespace inside: the unit could hold capabilities again in one of its own
            argv = [host_tool("nsenter"), "-t", str(child), "-U", "-S", "0", "-G", "0", "--"]
            argv += [host_tool("sh"), "-c", "echo 0 > /proc/sys/user/max_user_namespaces"]
            done = subprocess.run(argv, env={}, capture_output=True, timeout=START_TIMEOUT, stdin=subprocess.DEVNULL)
            if done.returncode != 0:
                raise SetupError(f"could not close the unit's user namespace: {done.stderr.decode()[-400:]}")
        except OSError as exc:
            raise SetupError(f"could not map the unit's user namespace: {exc}") from None
        finally:
            if release is not None:
                with contextlib.suppress(OSError):
                    os.write(release, b"1")

    def enter_argv(self) -> list[str]:
        flags = ["-U", "-S", str(INSIDE_UID), "-G", str(INSIDE_GID), "-m", "-u", "-i", "-n", "-p", "-r"]
        return [host_tool("nsenter"), "-t", str(self.child), *flags, "--"]


class NestedUserns(UnitUserns):
    """Ordinary harness: bwrap's outer namespace owns the mounts, the unit lives in the nested one."""

    def __init__(self, user: UnitUser) -> None:
        super().__init__(user)
        self._outer: int | None = None

    def bwrap_flags(self, block_fd: int | None) -> list[str]:
        return set_up_flags()

    def started(self, child: int, release: int | None) -> None:
        super().started(child, release)
        inner = os.open(f"/proc/{child}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
        try:
            self._outer = fcntl.ioctl(inner, NS_GET_PARENT)
        except OSError as exc:
            raise SetupError(f"could not find the unit's outer user namespace: {exc}") from None
        finally:
            os.close(inner)

    def enter_argv(self) -> list[str]:
        assert self._outer is not None
        nsenter = host_tool("nsenter")
        outer = [
            nsenter,
            f"--user=/proc/{os.getpid()}/fd/{self._outer}",
            "--preserve-credentials",
            "-t",
            str(self.child),
        ]
        outer += ["-m", "-u", "-i", "-n", "-p", "-r", "--"]
        # inside: /proc is the unit's own, and its PID 1 (bwrap's init) lives in the nested namespace
        return [*outer, nsenter, "--user=/proc/1/ns/user", "--preserve-credentials", "--"]

    def close(self) -> None:
        if self._outer is not None:
            with contextlib.suppress(OSError):
                os.close(self._outer)
            self._outer = None


def userns_for(user: UnitUser) -> UnitUserns:
    return MappedUserns(user) if user.harness_is_root else NestedUserns(user)
