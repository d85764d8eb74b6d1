"""The disk watch's measurement: real blocks (sparse files count what they hold), links not
followed, hard links once, and a bound on how many entries one walk reads."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coder_eval.sandbox.disk_watch import TooManyFilesError, Watched, used_bytes


def test_sparse_files_count_what_they_hold(tmp_path: Path) -> None:
    with open(tmp_path / "sparse", "wb") as fh:
        fh.truncate(10 * 2**30)  # 10 GiB apparent, nothing written
    (tmp_path / "real").write_bytes(b"x" * 65536)
    assert 65536 <= used_bytes([tmp_path]) < 2**20


def test_links_are_not_followed_and_hard_links_count_once(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big").write_bytes(b"y" * 2**20)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link").symlink_to(outside)
    (tree / "data").write_bytes(b"z" * 2**20)
    os.link(tree / "data", tree / "data2")
    assert 2**20 <= used_bytes([tree]) < 2**20 + 64 * 1024


def test_a_walk_is_bounded_in_entries(tmp_path: Path) -> None:
    for i in range(50):
        (tmp_path / f"f{i}").touch()
    with pytest.raises(TooManyFilesError):
        used_bytes([tmp_path], max_entries=10)


def test_a_breach_is_reported_once_and_kills(tmp_path: Path) -> None:
    (tmp_path / "data").write_bytes(b"x" * 2 * 2**20)
    seen: list[str] = []
    watched = Watched([tmp_path], 2**20, seen.append)
    assert watched.check() is not None and "1 MiB" in (watched.breach or "")
    assert watched.check() == watched.breach and len(seen) == 1
