"""Turn a relative path from a request into a file inside one directory, or refuse it.

Everything the board serves goes through `contained`: a request names a run by id (looked up,
never joined) and a path inside that run. The path may not be absolute, may not contain `..`,
a backslash or a NUL, and after symlinks are resolved it must still lie inside the run's own
directory. A symlink that points elsewhere is refused, not followed.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath


class PathRefusedError(Exception):
    """A requested path would leave the directory it must stay in (or is malformed)."""


def contained(base: Path, relative: str) -> Path:
    """The real path of `relative` under `base`; PathRefusedError when it is unsafe or escapes."""
    if "\x00" in relative or "\\" in relative:
        raise PathRefusedError(f"malformed path {relative!r}")
    pure = PurePosixPath(relative)
    if pure.is_absolute() or ".." in pure.parts:
        raise PathRefusedError(f"path {relative!r} leaves the run directory")
    root = base.resolve()
    target = (root / pure).resolve()
    if target != root and not target.is_relative_to(root):
        raise PathRefusedError(f"path {relative!r} resolves outside the run directory")
    return target


def is_inside(base: Path, path: Path) -> bool:
    """True when `path`, symlinks resolved, lies under `base` (also resolved)."""
    root = base.resolve()
    target = path.resolve()
    return target == root or target.is_relative_to(root)
