"""write_inside: the harness writes into a workspace the agent shaped, never through one of its links."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_eval.common.safe_open import PlantedLinkError, write_inside


def test_writes_and_makes_missing_directories(tmp_path: Path) -> None:
    write_inside(tmp_path, "a/b/c.txt", b"data")
    assert (tmp_path / "a" / "b" / "c.txt").read_bytes() == b"data"
    write_inside(tmp_path, "a/b/c.txt", b"new")
    assert (tmp_path / "a" / "b" / "c.txt").read_bytes() == b"new"


def test_a_link_at_the_end_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("mine")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "f").symlink_to(victim)
    write_inside(ws, "f", b"harness")
    assert victim.read_text() == "mine" and not (ws / "f").is_symlink() and (ws / "f").read_bytes() == b"harness"


def test_a_linked_directory_on_the_way_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "d").symlink_to(outside)
    with pytest.raises(OSError):
        write_inside(ws, "d/f", b"x")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("rel", ["", "../x", "a/../../x"])
def test_paths_leaving_the_root_are_refused(tmp_path: Path, rel: str) -> None:
    with pytest.raises(PlantedLinkError):
        write_inside(tmp_path, rel, b"x")
