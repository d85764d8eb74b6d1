"""Host paths a task names (template_dir, extra_mounts) stay inside the task's tree unless allowed.

The tree is the task directory (the YAML's) and its parent, so a suite's shared `../templates`
works while `/etc`, `~/.ssh` or `../../..` do not. A `template_dir` may also lie anywhere in the
repository that holds the task file (the git work tree around it), as suites written for the
reference system keep shared templates at the repository's root. `sandbox.allow_host_paths: true`
lifts the rule for tasks that really mean a host path. `plan` (static checks) and `run` (set-up)
call the same function, so they agree.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from coder_eval.models.sandbox import SandboxConfig, TemplateDirSource


def task_tree(task_dir: Path) -> list[Path]:
    """Directories host paths may resolve into: the task directory, and its parent unless that is / or HOME."""
    here = task_dir.resolve()
    roots = [here]
    parent = here.parent
    if parent != here and parent != Path(parent.anchor) and parent != Path.home().resolve():
        roots.append(parent)
    return roots


@lru_cache(maxsize=256)
def repository_root(task_dir: Path) -> Path | None:
    """The git work tree holding `task_dir` (the nearest directory with a `.git` entry), if any.

    The home directory and the filesystem root never count: a dotfiles repository at HOME would
    otherwise make every path under it "the task's repository"."""
    here = task_dir.resolve()
    home = Path.home().resolve()
    for directory in (here, *here.parents):
        if directory == home or directory == Path(directory.anchor):
            return None
        if (directory / ".git").exists():
            return directory
    return None


def confined(raw: str, task_dir: Path, *, allow: bool, repository: bool = False) -> tuple[Path, str | None]:
    """(resolved path, None) or (resolved path, why it is refused). Symlinks are resolved first.

    With `repository`, a path anywhere in the task's git work tree is also allowed."""
    text = os.path.expandvars(os.path.expanduser(raw))
    if "\0" in text:
        return task_dir / "invalid", f"{raw!r} contains a NUL byte, which no path can"
    path = (task_dir / text).resolve()
    roots = task_tree(task_dir)
    repo = repository_root(task_dir) if repository else None
    if repo is not None:
        roots.append(repo)
    if allow or any(path == root or path.is_relative_to(root) for root in roots):
        return path, None
    where = "the task's directory tree and its repository" if repository else "the task's directory tree"
    return path, (
        f"{raw!r} resolves to {path}, outside {where}; "
        "keep it next to the task, or set sandbox.allow_host_paths: true to allow host paths"
    )


def split_mount(entry: str) -> tuple[str, str]:
    """('path', 'ro'|'rw') from an extra_mounts entry ('path', 'path:ro' or 'path:rw')."""
    head, sep, mode = entry.rpartition(":")
    if sep and mode in ("ro", "rw"):
        return head, mode
    return entry, "ro"


def mount_problem(entry: str, config: SandboxConfig, task_dir: Path) -> tuple[Path, str, str | None]:
    """(resolved host path, mode, why it is refused or None) of one docker.extra_mounts entry."""
    raw, mode = split_mount(entry)
    path, why = confined(raw, task_dir, allow=config.allow_host_paths)
    return path, mode, why


def host_path_problems(config: SandboxConfig, task_dir: Path) -> list[tuple[str, str]]:
    """(message, field) for every host path of the sandbox that leaves the task tree (for `plan`)."""
    problems = []
    for i, src in enumerate(config.template_sources):
        if isinstance(src, TemplateDirSource):
            _, why = confined(src.path, task_dir, allow=config.allow_host_paths, repository=True)
            if why:
                problems.append((f"template directory {why}", f"sandbox.template_sources[{i}].path"))
    for i, entry in enumerate(config.docker.extra_mounts if config.docker else []):
        _, why = confined(split_mount(entry)[0], task_dir, allow=config.allow_host_paths)
        if why:
            problems.append((f"extra mount {why}", f"sandbox.docker.extra_mounts[{i}]"))
    return problems
