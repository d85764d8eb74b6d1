"""How a bubblewrap unit's user namespace is built and entered, so that nothing in it holds privilege.

Requirements (docs/security.md): every process of a unit (the agent, its children, criteria,
hooks) runs as a non-zero uid with no capabilities and cannot change the mounts the harness set up (no
remount, no umount). bubblewrap builds the namespaces; the harness enters them with `nsenter` for
every later command. Entering a user namespace gives the entering process every capability *in
that namespace* until it executes a program as a uid that is not the namespace's root, so each
scheme makes sure an entered process has a uid that is never that root:

**The harness is root (`MappedUserns`).** bwrap runs as root and waits (`--userns-block-fd`)
while the harness writes the namespace's maps itself: 0 ↔ host 0 (bwrap's own set-up identity,
which is why it can still bind paths under `/root`) and 1000 ↔ the dedicated unit user (see
unit_user.py). Commands enter as 1000 (`nsenter -S 1000 -G 1000`): changing uid away from the
namespace's root drops every capability.

**The harness is an ordinary user (`NestedUserns`).** The unit runs as the harness's own uid
(never 0) in a user namespace that has no root; see the class for how commands get in.

Either way the mount namespace belongs to a user namespace in which no unit process holds a
capability, every mount is nosuid (setuid bits and file capabilities do nothing), and a user
namespace a unit process creates for itself (Codex sandboxes its commands that way) gets a copy of
the mounts that the kernel locks: they cannot be unmounted or made writable there either. No unit
process can `ptrace` an entering command in its privileged instant (that needs the target's
capabilities as a subset of the tracer's).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from abc import ABC, abstractmethod
from typing import IO

from coder_eval.common.host_tools import host_tool
from coder_eval.sandbox.templates import SetupError
from coder_eval.sandbox.unit_user import INSIDE_GID, INSIDE_UID, UnitUser

NS_GET_PARENT = 0xB702


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

    def ready(self) -> None:  # noqa: B027 - only one scheme has work to do here
        """The sandbox runs its command: bwrap has finished arranging its namespaces."""

    @abstractmethod
    def enter_argv(self, *, own_net: bool = True) -> list[str]:
        """The command line that puts what follows it inside the unit, as uid 1000 without capabilities.

        `own_net`: the unit has a network namespace of its own to enter; one that shares the host's
        (`network: host`) has none, and an unprivileged harness could not enter the host's anyway.
        """

    def close(self) -> None:  # noqa: B027 - most schemes hold nothing
        """Release what the scheme holds for the unit."""


def set_up_flags(user: UnitUser) -> list[str]:
    """Throwaway set-up namespaces (uv, npm): a non-zero uid without capabilities.

    Set-up runs the task author's own installs as the harness's host user (root's bwrap maps
    uid 1000 inside to root outside), so they can fill the workspace and the harness's package
    cache; the harness hands the workspace to the unit's user afterwards.
    """
    ids = ["--uid", str(INSIDE_UID), "--gid", str(INSIDE_GID)] if user.harness_is_root else []
    return ["--unshare-user", *ids, "--cap-drop", "ALL"]


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
                inside = INSIDE_UID if kind == "uid" else INSIDE_GID
                with open(f"/proc/{child}/{kind}_map", "w") as fh:
                    fh.write(f"0 0 1\n{inside} {outside} 1\n")
        except OSError as exc:
            raise SetupError(f"could not map the unit's user namespace: {exc}") from None
        finally:
            if release is not None:
                with contextlib.suppress(OSError):
                    os.write(release, b"1")

    def enter_argv(self, *, own_net: bool = True) -> list[str]:
        flags = ["-U", "-S", str(INSIDE_UID), "-G", str(INSIDE_GID), "-m", "-u", "-i", *_net(own_net), "-p", "-r"]
        return [host_tool("nsenter"), "-t", str(self.child), *flags, "--"]


class NestedUserns(UnitUserns):
    """Ordinary harness: bwrap's outer namespace owns the mounts, the unit lives in a nested one.

    An unprivileged bwrap needs to be root in its namespace to mount `/dev`'s pseudo-terminals, so
    it builds the mounts in an outer user namespace (U1, where the harness's uid is 0) and runs the
    sandbox in a nested one (U2) where the harness's uid is itself again. Entering U2 directly
    would not do: the mount namespace belongs to U1, where a process of U2 holds nothing. So a
    command enters U1 and every other namespace first (the harness keeps a descriptor of U1 per
    unit, `NS_GET_PARENT` of U2, named as `/proc/<harness>/fd/<n>`), then U2 from inside with a
    second `nsenter`, read from the read-only `/usr`, and runs only then, as a uid U2 has no root
    for: without capabilities.
    """

    def __init__(self, user: UnitUser) -> None:
        super().__init__(user)
        self._outer: int | None = None

    def bwrap_flags(self, block_fd: int | None) -> list[str]:
        return ["--unshare-user", "--cap-drop", "ALL"]

    def ready(self) -> None:
        # only now: bwrap reports its process before it moves into the nested namespace
        inner = os.open(f"/proc/{self.child}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
        try:
            self._outer = fcntl.ioctl(inner, NS_GET_PARENT)
        except OSError as exc:
            raise SetupError(f"could not find the unit's outer user namespace: {exc}") from None
        finally:
            os.close(inner)

    def enter_argv(self, *, own_net: bool = True) -> list[str]:
        assert self._outer is not None
        nsenter = host_tool("nsenter")
        outer = [nsenter, f"--user=/proc/{os.getpid()}/fd/{self._outer}", "--preserve-credentials"]
        outer += ["-t", str(self.child), "-m", "-u", "-i", *_net(own_net), "-p", "-r", "--"]
        # inside: /proc is the unit's own, and its PID 1 (bwrap's init) lives in the nested namespace
        return [*outer, nsenter, "--user=/proc/1/ns/user", "--preserve-credentials", "--"]

    def close(self) -> None:
        if self._outer is not None:
            with contextlib.suppress(OSError):
                os.close(self._outer)
            self._outer = None


class RootOwnUserns(UnitUserns):
    """Root harness, a unit of the task author's own commands: bwrap maps 1000 to root, nothing to uid 0.

    No process inside is the namespace's root, so commands entered as 1000 hold no capability; but
    their host identity is root's, so a root-only file a read-only mount shows stays readable to
    them. That is why only units that run no agent get this scheme (they skip the map writing).
    """

    def bwrap_flags(self, block_fd: int | None) -> list[str]:
        return ["--unshare-user", "--uid", str(INSIDE_UID), "--gid", str(INSIDE_GID), "--cap-drop", "ALL"]

    def enter_argv(self, *, own_net: bool = True) -> list[str]:
        flags = ["-U", "-S", str(INSIDE_UID), "-G", str(INSIDE_GID), "-m", "-u", "-i", *_net(own_net), "-p", "-r"]
        return [host_tool("nsenter"), "-t", str(self.child), *flags, "--"]


def _net(own: bool) -> list[str]:
    return ["-n"] if own else []


def userns_for(user: UnitUser) -> UnitUserns:
    if not user.harness_is_root:
        return NestedUserns(user)
    return MappedUserns(user) if user.separate else RootOwnUserns(user)
