"""Copies keep sparse files sparse and stay within their caps; what is left out is noted."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from coder_eval.common.bounded_copy import CopyBudget, copy_file, data_bytes, move_tree

GIB = 1024**3


def _sparse(path: Path, size: int, data: bytes = b"", at: int = 0) -> Path:
    with open(path, "wb") as fh:
        fh.truncate(size)
        if data:
            fh.seek(at)
            fh.write(data)
    return path


def _on_disk(path: Path) -> int:
    return os.stat(path).st_blocks * 512


def test_a_sparse_file_is_copied_sparse(tmp_path: Path) -> None:
    src = _sparse(tmp_path / "big", 200 * GIB, b"the middle", at=100 * GIB)
    budget = CopyBudget()
    assert copy_file(src, tmp_path / "copy", budget, "big")
    assert os.stat(tmp_path / "copy").st_size == 200 * GIB and _on_disk(tmp_path / "copy") < 1024 * 1024
    with open(tmp_path / "copy", "rb") as fh:
        fh.seek(100 * GIB)
        assert fh.read(10) == b"the middle"
    assert budget.used < 1024 * 1024 and not budget.notes


def test_data_over_the_per_file_cap_is_left_out_and_noted(tmp_path: Path) -> None:
    (tmp_path / "real").write_bytes(b"x" * 5000)
    budget = CopyBudget(per_file=4096)
    assert not copy_file(tmp_path / "real", tmp_path / "copy", budget, "real")
    assert not (tmp_path / "copy").exists()
    assert budget.notes == ["real: 4.9 KiB of data, over the 4.0 KiB a copied file may hold"]


def test_the_total_cap_counts_across_files(tmp_path: Path) -> None:
    budget = CopyBudget(per_file=10_000, total=12_000)
    for name in ("a", "b", "c"):
        (tmp_path / name).write_bytes(b"y" * 5000)
    copied = [copy_file(tmp_path / n, tmp_path / f"{n}.copy", budget, n) for n in ("a", "b", "c")]
    assert copied == [True, True, False] and "over its 11.7 KiB in all" in budget.notes[0]


def test_links_and_fifos_are_not_followed(tmp_path: Path) -> None:
    (tmp_path / "target").write_text("secret")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    os.mkfifo(tmp_path / "fifo")
    budget = CopyBudget()
    with pytest.raises(OSError):
        copy_file(tmp_path / "link", tmp_path / "out", budget, "link")
    assert not copy_file(tmp_path / "fifo", tmp_path / "out2", budget, "fifo")
    assert budget.notes == ["fifo: not a regular file"]


def test_data_bytes_counts_extents_not_length(tmp_path: Path) -> None:
    path = _sparse(tmp_path / "s", 10 * GIB, b"z" * 8192, at=GIB)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert 8192 <= data_bytes(fd, os.fstat(fd).st_size) <= 64 * 1024
    finally:
        os.close(fd)


def _other_file_system() -> Path | None:
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and os.stat(shm).st_dev != os.stat(tempfile.gettempdir()).st_dev:
        return shm
    return None


def test_a_move_across_file_systems_is_a_bounded_sparse_copy(tmp_path: Path) -> None:
    other = _other_file_system()
    if other is None:
        pytest.skip("needs a second file system (/dev/shm)")
    src = Path(tempfile.mkdtemp(dir=other, prefix="move-"))
    try:
        (src / "sub").mkdir()
        _sparse(src / "sub" / "huge", 100 * GIB, b"end", at=100 * GIB - 3)
        (src / "dense").write_bytes(b"d" * 20_000)
        (src / "ok.txt").write_text("fine")
        (src / "link").symlink_to("ok.txt")
        budget = CopyBudget(per_file=10_000)
        dst = tmp_path / "artifacts"
        move_tree(src, dst, budget)
        assert not src.exists()
        assert (dst / "ok.txt").read_text() == "fine" and os.readlink(dst / "link") == "ok.txt"
        assert os.stat(dst / "sub" / "huge").st_size == 100 * GIB and _on_disk(dst / "sub" / "huge") < 1024 * 1024
        assert not (dst / "dense").exists() and budget.notes == [
            "dense: 19.5 KiB of data, over the 9.8 KiB a copied file may hold"
        ]
    finally:
        shutil.rmtree(src, ignore_errors=True)


def test_a_move_on_one_file_system_is_a_rename(tmp_path: Path) -> None:
    src = tmp_path / "ws"
    src.mkdir()
    _sparse(src / "f", 5 * GIB)
    inode = os.stat(src / "f").st_ino
    move_tree(src, tmp_path / "kept", CopyBudget(per_file=1))
    assert os.stat(tmp_path / "kept" / "f").st_ino == inode
