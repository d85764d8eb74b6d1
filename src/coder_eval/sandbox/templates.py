"""Apply template sources to a sandbox, in order; later sources overwrite earlier files."""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
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


def copy_tree(src: Path, dst: Path, ignore: IgnoreRules, include: Sequence[str] = ()) -> None:
    """Copy a directory, skipping ignored names unless `include` names them; symlinks are copied as links."""
    rescue = Reinclude(tuple(include))

    def skip(directory: str, names: list[str]) -> set[str]:
        rel_dir = Path(directory).relative_to(src).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        only_patterns = rel_dir in rescue.entered  # an ignored directory entered for a pattern inside it
        return {
            n
            for n in names
            if (only_patterns or ignore.matches(n)) and not rescue.keeps(prefix + n, is_dir=Path(directory, n).is_dir())
        }

    shutil.copytree(src, dst, symlinks=True, ignore=skip, dirs_exist_ok=True)
    rescue.prune_empty(dst)


@dataclass
class Reinclude:
    """`template_dir.include_patterns`: ignored entries copied all the same.

    A pattern matches a path relative to the template directory, or a bare name at any depth.
    An ignored directory is entered only when some pattern spells a path inside it (its literal
    head starts with the directory's path), so `node_modules/pkg/**` copies one package and not
    the rest; directories entered that way and left empty are removed after the copy.
    """

    patterns: tuple[str, ...]
    entered: set[str] = field(default_factory=set)

    def keeps(self, rel: str, *, is_dir: bool) -> bool:
        name = rel.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatchcase(rel, p) or ("/" not in p and fnmatch.fnmatchcase(name, p)) for p in self.patterns):
            return True
        if is_dir and any(_literal_head(p).startswith(rel + "/") for p in self.patterns):
            self.entered.add(rel)
            return True
        return False

    def prune_empty(self, dst: Path) -> None:
        for rel in sorted(self.entered, key=len, reverse=True):
            path = dst / rel
            if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
                path.rmdir()


def _literal_head(pattern: str) -> str:
    """The part of a glob before its first wildcard."""
    cut = min((i for i, ch in enumerate(pattern) if ch in "*?["), default=len(pattern))
    return pattern[:cut]


def apply_template_dir(
    src: TemplateDirSource, root: Path, task_dir: Path, task_file: Path, ignore: IgnoreRules, *, allow_host: bool
) -> None:
    from coder_eval.models.host_paths import confined

    source, refused = confined(src.path, task_dir, allow=allow_host, repository=True)
    if refused is not None:
        raise TaskConfigError.single(task_file, f"template directory {refused}", "sandbox.template_sources", "")
    if not source.is_dir():
        raise TaskConfigError.single(
            task_file,
            f"template directory {src.path!r} does not exist",
            "sandbox.template_sources",
            "paths are relative to the task YAML",
        )
    copy_tree(source, root / src.mount_point, ignore, src.include_patterns)


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
