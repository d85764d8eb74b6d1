"""Apply template sources to a sandbox, in order; later sources overwrite earlier files."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from coder_eval.common.host_tools import HostToolMissingError, host_tool
from coder_eval.common.ignore import IgnoreRules
from coder_eval.errors import TaskConfigError
from coder_eval.models.sandbox import RepoSource, StarterFilesSource, TemplateDirSource, TemplateSource

GIT_TIMEOUT = 300


class SetupError(Exception):
    """The sandbox could not be prepared (infrastructure, not the agent)."""


def _git(args: list[str], cwd: Path | None = None) -> None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        subprocess.run(
            [host_tool("git"), *args],
            cwd=cwd,
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.CalledProcessError as exc:
        raise SetupError(f"git {args[0]} failed: {exc.stderr.strip()[:500]}") from None
    except subprocess.TimeoutExpired:
        raise SetupError(f"git {args[0]} timed out after {GIT_TIMEOUT}s") from None
    except HostToolMissingError as exc:
        raise SetupError(str(exc)) from None


def apply_repo(src: RepoSource, root: Path) -> None:
    # `--` keeps a URL that starts with '-' from being read as an option.
    _git(["clone", "--quiet", "--", src.url, str(root)])
    if src.commit:
        _git(["checkout", "--quiet", "--detach", src.commit], cwd=root)


def copy_tree(src: Path, dst: Path, ignore: IgnoreRules) -> None:
    """Copy a directory, skipping ignored names; symlinks are copied as links."""

    def skip(_dir: str, names: list[str]) -> set[str]:
        return {n for n in names if ignore.matches(n)}

    shutil.copytree(src, dst, symlinks=True, ignore=skip, dirs_exist_ok=True)


def apply_template_dir(
    src: TemplateDirSource, root: Path, task_dir: Path, task_file: Path, ignore: IgnoreRules, *, allow_host: bool
) -> None:
    from coder_eval.models.host_paths import confined

    source, refused = confined(src.path, task_dir, allow=allow_host)
    if refused is not None:
        raise TaskConfigError.single(task_file, f"template directory {refused}", "sandbox.template_sources", "")
    if not source.is_dir():
        raise TaskConfigError.single(
            task_file,
            f"template directory {src.path!r} does not exist",
            "sandbox.template_sources",
            "paths are relative to the task YAML",
        )
    copy_tree(source, root / src.mount_point, ignore)


def apply_starter_files(src: StarterFilesSource, root: Path) -> None:
    for f in src.files:
        path = root / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        path.write_text(f.content, encoding="utf-8")


def apply_sources(
    sources: list[TemplateSource],
    root: Path,
    *,
    task_dir: Path,
    task_file: Path,
    ignore: IgnoreRules,
    allow_host: bool = False,
) -> None:
    for src in sources:
        if isinstance(src, RepoSource):
            apply_repo(src, root)
        elif isinstance(src, TemplateDirSource):
            apply_template_dir(src, root, task_dir, task_file, ignore, allow_host=allow_host)
        else:
            apply_starter_files(src, root)
    if sources:
        owner_writable(root)


def owner_writable(root: Path) -> None:
    """Let the workspace's owner write what the templates brought (a read-only checkout stays read-only
    only at its source): units hold no capability that would override the modes, so a starter file
    copied as 0444 could not be edited, nor a venv created in a 0555 workspace."""
    for here, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = os.path.join(here, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                continue
            wanted = info.st_mode | (stat.S_IRWXU if stat.S_ISDIR(info.st_mode) else stat.S_IRUSR | stat.S_IWUSR)
            if wanted != info.st_mode:
                os.chmod(path, stat.S_IMODE(wanted))
    info = os.stat(root)
    os.chmod(root, stat.S_IMODE(info.st_mode) | stat.S_IRWXU)
