"""A unit's own virtual environment, made in about a millisecond from its task's shared one.

The shared environment (`task_envs.py`) is a uv venv built once per task and then made read-only.
A unit's clone is a venv of its own, written by the harness without running anything: the same
`pyvenv.cfg` and interpreter links, the activation and entry-point scripts (uv writes them
relocatable, so the same bytes work at any path), and an empty site-packages holding one `.pth`
file that appends the shared site-packages (and pip, as a zip application) to `sys.path`.

So `python` and `pip` resolve to the unit's venv (`sys.prefix` is the clone), what the unit
installs lands in its own site-packages, ahead of the shared packages, and nothing of the shared
environment is copied or linked into the unit: its files stay where units can only read them.
What differs from a venv of its own: a shared package cannot be uninstalled or edited in place
(pip says it lies outside the environment); installing another version shadows it.

The interface is small on purpose (the clone is the per-unit cost of every Python task):
`read_template` once per shared environment, `clone_venv` per unit, `relink` for a preserved
workspace graded again after its run's shared environment is gone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TASK_ENV_PTH = "_coder_eval_task_env.pth"
"""The clone's one file in its own site-packages: where the shared packages are."""
LEFT_OUT = frozenset({".lock", "CACHEDIR.TAG"})
LEFT_OUT_SUFFIXES = (".bat", ".ps1", ".nu", ".xsh")
"""What a clone does without: uv's lock, the backup-tool marker, and activation scripts for Windows,
PowerShell, Nushell and xonsh. Every file is a file-system operation on each unit's critical path."""
SCRIPT_LIMIT = 64 * 1024
"""A bin file up to this size that starts with `#!` is a script and is copied; anything else (a
compiled tool a package ships, such as a linter binary) is linked to the shared, read-only file."""


@dataclass(frozen=True)
class VenvTemplate:
    """What every clone of one shared environment consists of (paths relative to the clone's root)."""

    dirs: tuple[str, ...]
    files: tuple[tuple[str, bytes, int], ...]
    """(path, content, mode) of the small files each clone gets a copy of."""
    links: tuple[tuple[str, str], ...]
    """(path, target) of symbolic links: interpreter links, and compiled tools of the shared venv."""
    site: str
    """The clone's own site-packages directory."""
    shared_paths: tuple[str, ...]
    """Absolute paths the clone's `.pth` appends to sys.path: the shared site-packages (as a site
    directory, so its own `.pth` files work) first, then zip applications such as pip."""

    def pth(self) -> bytes:
        site, *extra = self.shared_paths
        lines = [f"import site; site.addsitedir({site!r})", *extra]
        return ("\n".join(lines) + "\n").encode()


def read_template(
    venv: Path, *, extra_paths: tuple[str, ...] = (), extra_scripts: tuple[tuple[str, bytes], ...] = ()
) -> VenvTemplate:
    """The template of clones of `venv` (a relocatable uv venv).

    `extra_paths` follow its site-packages on the clones' sys.path; `extra_scripts` are further
    bin scripts (name, content) every clone gets, such as `pip` for a pip that lives in a zip.
    """
    sites = sorted(venv.glob("lib/python*/site-packages"))
    if len(sites) != 1:
        raise ValueError(f"{venv} is not a virtual environment with one site-packages directory")
    site = sites[0].relative_to(venv).as_posix()
    files: list[tuple[str, bytes, int]] = []
    links: list[tuple[str, str]] = []
    for path in sorted(venv.iterdir()):
        if path.is_symlink():
            links.append((path.name, os.readlink(path)))
        elif path.is_file() and path.name not in LEFT_OUT:
            files.append((path.name, path.read_bytes(), 0o644))
    for path in sorted((venv / "bin").iterdir()):
        rel = f"bin/{path.name}"
        if path.suffix in LEFT_OUT_SUFFIXES:
            continue
        if path.is_symlink():
            links.append((rel, os.readlink(path)))
        elif path.is_file():
            info = path.stat()
            data = path.read_bytes() if info.st_size <= SCRIPT_LIMIT else b"\0"
            if b"\0" in data:  # a compiled program: the shared copy, read-only, runs from anywhere
                links.append((rel, str(path)))
            else:
                files.append((rel, data, info.st_mode & 0o777 | 0o200))
    names = {rel for rel, _, _ in files} | {rel for rel, _ in links}
    files += [(f"bin/{name}", data, 0o755) for name, data in extra_scripts if f"bin/{name}" not in names]
    dirs = ("bin", *_parents(site))
    return VenvTemplate(dirs, tuple(files), tuple(links), site, (str(venv / site), *extra_paths))


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def clone_venv(template: VenvTemplate, dest: Path) -> Path:
    """Write a clone at `dest` (which must not exist yet); returns its bin directory."""
    os.mkdir(dest)
    root = str(dest)
    for rel in template.dirs:
        os.mkdir(os.path.join(root, rel))
    for rel, target in template.links:
        os.symlink(target, os.path.join(root, rel))
    for rel, data, mode in (*template.files, (f"{template.site}/{TASK_ENV_PTH}", template.pth(), 0o644)):
        fd = os.open(os.path.join(root, rel), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    return dest / "bin"


def relink(template: VenvTemplate, dest: Path) -> bool:
    """Point an existing clone at `template`'s shared environment; False when `dest` is no clone."""
    pth = dest / template.site / TASK_ENV_PTH
    if not pth.is_file() or pth.is_symlink():
        return False
    pth.write_bytes(template.pth())
    return True


def clone_site(venv: Path) -> Path | None:
    """The own site-packages of a clone at `venv` (None when `venv` is no clone)."""
    for pth in venv.glob(f"lib/python*/site-packages/{TASK_ENV_PTH}"):
        return pth.parent
    return None
