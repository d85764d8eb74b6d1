"""Host paths a task names (template_dir, extra_mounts) stay inside the task's tree unless allowed.

The tree is the task directory (the YAML's) and its parent, so a suite's shared `../templates`
works while `/etc`, `~/.ssh` or `../../..` do not. `sandbox.allow_host_paths: true` lifts the rule
for tasks that really mean a host path. `plan` (static checks) and `run` (set-up) call the same
function, so they agree.
"""

from __future__ import annotations

import os
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


def confined(raw: str, task_dir: Path, *, allow: bool) -> tuple[Path, str | None]:
    """(resolved path, None) or (resolved path, why it is refused). Symlinks are resolved first."""
    text = os.path.expandvars(os.path.expanduser(raw))
    if "\0" in text:
        return task_dir / "invalid", f"{raw!r} contains a NUL byte, which no path can"
    path = (task_dir / text).resolve()
    if allow or any(path == root or path.is_relative_to(root) for root in task_tree(task_dir)):
        return path, None
    return path, (
        f"{raw!r} resolves to {path}, outside the task's directory tree; "
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
            _, why = confined(src.path, task_dir, allow=config.allow_host_paths)
            if why:
                problems.append((f"template directory {why}", f"sandbox.template_sources[{i}].path"))
    for i, entry in enumerate(config.docker.extra_mounts if config.docker else []):
        _, why = confined(split_mount(entry)[0], task_dir, allow=config.allow_host_paths)
        if why:
            problems.append((f"extra mount {why}", f"sandbox.docker.extra_mounts[{i}]"))
    return problems
