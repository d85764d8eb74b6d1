"""Spare tempdir homes: reused only when emptied down to an empty tmp, deleted otherwise."""

from __future__ import annotations

import os
from pathlib import Path

from coder_eval.sandbox import home_pool
from coder_eval.sandbox.home_pool import give_back, take_home


def _used(home: Path) -> None:
    """What a unit may leave: dotfiles, nested trees, read-only dirs, links out, a full tmp."""
    (home / ".config" / "tool").mkdir(parents=True)
    (home / ".config" / "tool" / "token").write_text("secret")
    (home / ".bashrc").write_text("echo hi")
    (home / "tmp" / "scratch").mkdir()
    (home / "tmp" / "scratch" / "big.bin").write_bytes(b"x" * 1000)
    locked = home / "locked"
    locked.mkdir()
    (locked / "f").write_text("f")
    locked.chmod(0o500)
    (home / "out-link").symlink_to("/etc")
    home.chmod(0o755)


def test_a_used_home_comes_back_empty(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    first = take_home(scratch)
    _used(first)
    give_back(first, scratch)
    second = take_home(scratch)
    assert second == first
    assert os.listdir(second) == ["tmp"]
    assert os.listdir(second / "tmp") == []
    assert (second.stat().st_mode & 0o777) == 0o700
    assert Path("/etc").is_dir()  # the link was removed, not followed


def test_a_home_whose_tmp_became_a_link_is_deleted(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("operator's file")
    home = take_home(scratch)
    (home / "tmp").rmdir()
    (home / "tmp").symlink_to(outside)
    give_back(home, scratch)
    assert not home.exists()
    assert (outside / "keep.txt").read_text() == "operator's file"
    fresh = take_home(scratch)
    assert fresh != home and os.listdir(fresh) == ["tmp"]


def test_homes_are_not_shared_between_scratch_directories(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    home = take_home(a)
    give_back(home, a)
    other = take_home(b)
    assert other.parent == b
    assert take_home(a) == home


def test_a_spare_removed_with_its_scratch_is_not_handed_out(tmp_path: Path) -> None:
    import shutil

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    home = take_home(scratch)
    give_back(home, scratch)
    shutil.rmtree(scratch)  # the run ended and removed its scratch directory
    scratch.mkdir()
    fresh = take_home(scratch)
    assert fresh.is_dir() and (fresh / "tmp").is_dir()


def test_spares_are_bounded(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    homes = [take_home(scratch) for _ in range(home_pool.SPARE_LIMIT + 3)]
    for home in homes:
        give_back(home, scratch)
    assert sum(1 for h in homes if h.exists()) == home_pool.SPARE_LIMIT


def test_a_spare_written_to_after_it_was_emptied_is_not_handed_out(tmp_path: Path) -> None:
    """A process left over from an earlier unit that writes into the spare home makes it unusable."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    home = take_home(scratch)
    give_back(home, scratch)
    (home / "tmp" / "late.log").write_text("written after the unit ended")
    fresh = take_home(scratch)
    assert fresh != home
    assert not home.exists()
    assert os.listdir(fresh) == ["tmp"] and os.listdir(fresh / "tmp") == []
