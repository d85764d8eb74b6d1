"""A throwaway copy of a unit's workspace, in a fresh environment of the unit's own driver.

A judge agent works here, never in the agent's workspace: the copy is made file by file (no hard
links, so a write in the copy cannot reach an original file), links that point back into the
original are re-pointed at the copy, and the security floor is always left out (`.claude` and
`.mcp.json`, where a planted hook or MCP server would wait, and `_reference`, which only the
harness may fill). The environment comes from the unit's driver with the unit's configuration,
so a bubblewrap unit's judge runs in namespaces of its own that do not mount the original. Its
processes carry a tag of their own and are all killed when the copy is closed, and the copy is
deleted with everything in it.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from coder_eval.common.bounded_copy import CopyBudget, copy_file
from coder_eval.common.ignore import IgnoreRules
from coder_eval.common.reaper import UNIT_TAG_VAR, kill_tagged, new_tag, reap
from coder_eval.sandbox.deadline import BoundedEnvironment
from coder_eval.sandbox.drivers import PreservationMode
from coder_eval.sandbox.environment import SandboxEnvironment
from coder_eval.sandbox.record_cli import MOCKS_DIR
from coder_eval.sandbox.sandbox import Sandbox

SECURITY_FLOOR = (".claude", ".mcp.json", "_reference")
"""Never copied, whatever the task's ignore patterns say."""

REFERENCE_DIR = "_reference"


def copy_rules(base: list[str] | None, extra: list[str] | None) -> IgnoreRules:
    """The defaults with the task's and the judge's overrides, then the floor on top (it cannot be lifted)."""
    rules = IgnoreRules.with_overrides([*(base or []), *(extra or [])])
    return IgnoreRules(tuple(dict.fromkeys([*rules.patterns, *SECURITY_FLOOR])))


def copy_tree(src: Path, dst: Path, rules: IgnoreRules, budget: CopyBudget | None = None) -> list[str]:
    """Copy `src` into `dst` (real copies, modes kept, sparse files kept sparse, within `budget`:
    see common/bounded_copy.py); returns what was left out, relative to `src`, a file left out for
    its size with the reason."""
    budget = CopyBudget() if budget is None else budget
    src = src.resolve()
    skipped: list[str] = []
    for root, dirs, files in os.walk(src):
        here = Path(root)
        rel = here.relative_to(src)
        (dst / rel).mkdir(parents=True, exist_ok=True)
        keep = []
        for name in sorted(dirs):
            item = here / name
            if rules.matches(name):
                skipped.append(str(rel / name))
            elif item.is_symlink():
                _copy_link(item, src, dst, rel / name, skipped)
            else:
                keep.append(name)
        dirs[:] = keep
        for name in sorted(files):
            item = here / name
            if rules.matches(name):
                skipped.append(str(rel / name))
            elif item.is_symlink():
                _copy_link(item, src, dst, rel / name, skipped)
            elif item.is_file():
                if not copy_file(item, dst / rel / name, budget, str(rel / name)):
                    skipped.append(budget.notes[-1])
            else:
                skipped.append(str(rel / name))  # sockets, fifos, devices
    return skipped


def _copy_link(item: Path, src: Path, dst: Path, rel: Path, skipped: list[str]) -> None:
    """Re-create a link: into the original tree it points at the same place in the copy, elsewhere unchanged."""
    raw = os.readlink(item)
    pointed = Path(os.path.normpath(item.parent / raw))
    target = dst / rel
    if pointed == src or pointed.is_relative_to(src):
        inner = pointed.relative_to(src)
        if any(part in SECURITY_FLOOR for part in inner.parts):
            skipped.append(str(rel))
            return
        os.symlink(os.path.relpath(dst / inner, target.parent), target)
    else:
        os.symlink(raw, target)


def stage_reference(reference: Path, workspace: Path) -> Path:
    """Put a copy of the reference at `_reference/` in the workspace copy, read-only."""
    target = workspace / REFERENCE_DIR
    if target.exists() or target.is_symlink():
        shutil.rmtree(target, ignore_errors=True)
        target.unlink(missing_ok=True)
    copy_tree(reference, target, IgnoreRules(("__pycache__", ".git")))
    for root, _dirs, files in os.walk(target):
        for name in files:
            path = Path(root) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return target


@dataclass
class WorkspaceCopy:
    """An open copy: its environment (commands and the judge's CLI run there) and its cleanup."""

    environment: SandboxEnvironment
    tag: str
    skipped: list[str] = field(default_factory=list)
    closed: bool = False

    @property
    def workspace(self) -> Path:
        return self.environment.workspace

    def kill(self) -> None:
        """End every process started in the copy (safe from any thread)."""
        self.environment.kill_all()
        reap(kill_tagged(self.tag))

    def close(self) -> None:
        """Kill what is left and delete the copy (idempotent)."""
        if self.closed:
            return
        self.closed = True
        try:
            self.kill()
        finally:
            self.environment.finish()
            shutil.rmtree(self.environment.workspace, ignore_errors=True)


def open_copy(
    sandbox: Sandbox,
    *,
    ignore_patterns: list[str] | None = None,
    reference: Path | None = None,
    tools: tuple[str, ...] = (),
) -> WorkspaceCopy:
    """Copy the unit's workspace into a new environment of the unit's driver; the reference at `_reference/`."""
    request = replace(
        sandbox.request,
        mode=PreservationMode.NONE,
        tools=tuple(dict.fromkeys([*sandbox.request.tools, *tools])),
    )
    env: SandboxEnvironment = sandbox.driver.create(request)
    tag = new_tag()
    copy = WorkspaceCopy(env, tag)
    try:
        rules = copy_rules(sandbox.config.ignore_patterns, ignore_patterns)
        copy.skipped = copy_tree(sandbox.workspace, env.workspace, rules)
        if reference is not None and reference.is_dir():
            stage_reference(reference, env.workspace)
        env.add_env({UNIT_TAG_VAR: tag})
        root = env.workspace
        dirs = [root / MOCKS_DIR, *(root / rel for rel in sandbox.config.mock_path_dirs)]
        env.add_path_entries([d for d in dirs if d.is_dir() and d.resolve().is_relative_to(root.resolve())])
        env.seal()
        if sandbox.deadline is not None:
            copy.environment = BoundedEnvironment(env, sandbox.deadline)
    except BaseException:
        copy.close()
        raise
    return copy
