"""Who a unit's processes are: a non-zero uid inside, and on the host a user that owns nothing else.

Inside bubblewrap every process of a unit runs as uid/gid 1000 with no capabilities. On the host
that identity is:

- the harness's own user when the harness is an ordinary user (the kernel lets an unprivileged
  user map only itself into a user namespace);
- a dedicated unprivileged user, `77777` unless `CODER_EVAL_UNIT_UID` (and `CODER_EVAL_UNIT_GID`)
  say otherwise, when the harness runs as root. That user owns no file on the machine but the
  unit's workspace and home, so a unit cannot read the root-only files that a read-only view of
  `/etc` or `/opt` still shows, and cannot signal anything of root's.

Docker units run as that same host user (`docker run --user`). Files the harness writes into a
unit before it starts are handed over to the unit's user (`hand_over`), and the preserved
workspace is taken back (`take_back`) so the operator owns the artifacts of their run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

INSIDE_UID = 1000
INSIDE_GID = 1000
DEFAULT_UNIT_UID = 77777
"""Above the range Debian and Fedora give to accounts (60000) and below the usual sub-uid ranges (100000)."""


@dataclass(frozen=True)
class UnitUser:
    """The host uid/gid a unit's processes have, and whether the harness is root."""

    uid: int
    gid: int
    harness_is_root: bool

    @property
    def separate(self) -> bool:
        """Whether the unit's host user differs from the harness's (files must be handed over)."""
        return (self.uid, self.gid) != (os.geteuid(), os.getegid())


def _id_from_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number (a uid/gid for sandboxed units), not {raw!r}") from None
    if value <= 0 or value >= 2**32 - 1:
        raise ValueError(f"{name} must be a non-zero uid/gid, not {value}")
    return value


def unit_user(*, runs_agent: bool = True) -> UnitUser:
    """The identity units of this harness run as (see the module docstring).

    A unit that runs only the task author's commands (`agent: none`) keeps the harness's own host
    user (still without capabilities inside): there is nothing to keep it from, and handing files
    over would cost every row of a large dataset two walks of its workspace.
    """
    if os.geteuid() != 0 or not runs_agent:
        return UnitUser(os.geteuid(), os.getegid(), harness_is_root=os.geteuid() == 0)
    uid = _id_from_env("CODER_EVAL_UNIT_UID", DEFAULT_UNIT_UID)
    gid = _id_from_env("CODER_EVAL_UNIT_GID", uid)
    return UnitUser(uid, gid, harness_is_root=True)


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    """chown a tree without following links (a link's target is never touched)."""
    if not os.path.lexists(root):
        return
    os.lchown(root, uid, gid)
    if root.is_symlink() or not root.is_dir():
        return
    for here, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            try:
                os.lchown(os.path.join(here, name), uid, gid)
            except FileNotFoundError:
                continue


def hand_over(paths: list[Path], user: UnitUser) -> None:
    """Give the unit's user the trees the harness prepared for it (no-op when it is the harness's own)."""
    if user.separate:
        for path in paths:
            _chown_tree(path, user.uid, user.gid)


def take_back(path: Path | None, user: UnitUser) -> None:
    """Make the harness's user own a tree the unit wrote (its preserved workspace)."""
    if path is not None and user.separate:
        _chown_tree(path, os.geteuid(), os.getegid())


def owner_of(workspace: Path, *, runs_agent: bool = True) -> UnitUser:
    """The identity for grading an existing workspace: its owner, when that is an ordinary user.

    Grading someone's directory in place must not change who owns its files, so a root harness
    runs the commands as the directory's owner; a root-owned one (preserved artifacts) is handed to
    the dedicated unit user and back, like a fresh workspace.
    """
    info = workspace.stat()
    if os.geteuid() == 0 and info.st_uid != 0:
        return UnitUser(info.st_uid, info.st_gid, harness_is_root=True)
    return unit_user(runs_agent=runs_agent)
