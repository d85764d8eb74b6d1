"""Request paths stay inside their run: `..`, absolute paths, odd characters and symlinks out are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_eval.board.paths import PathRefusedError, contained


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / "r1"
    (run / "default" / "t" / "00" / "artifacts").mkdir(parents=True)
    (run / "default" / "t" / "00" / "artifacts" / "a.txt").write_text("a")
    (tmp_path / "outside.txt").write_text("secret")
    return run


@pytest.mark.parametrize(
    "bad",
    ["../outside.txt", "default/../../outside.txt", "/etc/passwd", "default\\..\\..\\x", "a\x00b", "..", "./../r1"],
)
def test_escaping_paths_are_refused(run_dir: Path, bad: str) -> None:
    with pytest.raises(PathRefusedError):
        contained(run_dir, bad)


def test_symlink_out_of_the_run_is_refused(run_dir: Path, tmp_path: Path) -> None:
    (run_dir / "leak").symlink_to(tmp_path / "outside.txt")
    (run_dir / "leakdir").symlink_to(tmp_path)
    with pytest.raises(PathRefusedError):
        contained(run_dir, "leak")
    with pytest.raises(PathRefusedError):
        contained(run_dir, "leakdir/outside.txt")


def test_symlink_within_the_run_is_followed(run_dir: Path) -> None:
    (run_dir / "alias").symlink_to(run_dir / "default" / "t" / "00" / "artifacts")
    assert contained(run_dir, "alias/a.txt").read_text() == "a"


def test_plain_paths_resolve_under_the_run(run_dir: Path) -> None:
    assert contained(run_dir, "default/t/00/artifacts/a.txt") == (run_dir / "default/t/00/artifacts/a.txt").resolve()
    assert contained(run_dir, "") == run_dir.resolve()
