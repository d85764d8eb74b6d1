"""The inotify watch behind the tempdir check of shared environments: writes are seen, reads are not."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from coder_eval.common.tree_watch import TreeWatch

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def tree(root: Path) -> Path:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("X = 1\n")
    (root / "pkg" / "sub" / "data.txt").write_text("data\n")
    (root / "link").symlink_to("/usr/bin/env")
    return root


def _write(root: Path) -> None:
    with open(root / "pkg" / "sub" / "data.txt", "a") as fh:
        fh.write("more")


def _through_a_hard_link(root: Path) -> None:
    other = root.parent / "elsewhere"
    os.link(root / "pkg" / "mod.py", other)
    other.write_text("X = 2\n")


CHANGES: dict[str, Callable[[Path], None]] = {
    "write": _write,
    "chmod": lambda root: (root / "pkg" / "mod.py").chmod(0o600),
    "create": lambda root: (root / "pkg" / "sub" / "new.py").write_text(""),
    "delete": lambda root: (root / "pkg" / "mod.py").unlink(),
    "rename": lambda root: (root / "pkg" / "mod.py").rename(root / "pkg" / "moved.py"),
    "hard-link": _through_a_hard_link,
    "open-for-writing": lambda root: open(root / "pkg" / "mod.py", "r+").close(),
}


@pytest.mark.parametrize("change", CHANGES)
def test_every_kind_of_change_is_seen(tmp_path: Path, change: str) -> None:
    root = tree(tmp_path / "tree")
    watch = TreeWatch.start(root)
    assert watch is not None
    try:
        assert not watch.take()
        CHANGES[change](root)
        assert watch.take()
        assert not watch.take()  # asked once, forgotten
    finally:
        watch.close()


def test_reading_and_importing_are_not_changes(tmp_path: Path) -> None:
    root = tree(tmp_path / "tree")
    subprocess.run([sys.executable, "-B", "-c", "import mod"], cwd=root / "pkg", check=True, timeout=60)
    watch = TreeWatch.start(root)
    assert watch is not None
    try:
        (root / "pkg" / "sub" / "data.txt").read_text()
        os.listdir(root / "pkg")
        os.stat(root / "link")
        subprocess.run([sys.executable, "-B", "-c", "import mod"], cwd=root / "pkg", check=True, timeout=60)
        assert not watch.take()
    finally:
        watch.close()


def test_trees_are_told_apart(tmp_path: Path) -> None:
    one, two = tree(tmp_path / "one"), tree(tmp_path / "two")
    first, second = TreeWatch.start(one), TreeWatch.start(two)
    assert first is not None and second is not None
    try:
        _write(two)
        assert second.take() and not first.take()
    finally:
        first.close()
        second.close()
