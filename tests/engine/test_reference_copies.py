"""Neutralising reference content written into a workspace while a criterion saw the reference."""

from __future__ import annotations

import os
import time
from pathlib import Path

from coder_eval.common.reference_scrub import ReferenceScrubber
from coder_eval.engine import reference_copies
from coder_eval.engine.reference_copies import neutralise_copies

LINE = "EXPECTED = {'north': 12, 'south': 7, 'east': 3}"


def _setup(tmp_path: Path) -> tuple[Path, ReferenceScrubber]:
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "answer.py").write_text(f"# key\n{LINE}\n")
    (ref / "model.bin").write_bytes(bytes(range(256)))
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws, ReferenceScrubber(ref)


def test_copies_and_embedded_content_are_rewritten_and_named(tmp_path: Path) -> None:
    ws, scrub = _setup(tmp_path)
    since = time.time()
    (ws / "copy.py").write_bytes((tmp_path / "ref" / "answer.py").read_bytes())
    (ws / "model.bin").write_bytes(bytes(range(256)))
    (ws / "deep" / "er").mkdir(parents=True)
    (ws / "deep" / "er" / "notes.txt").write_text(f"my notes\n  {LINE}\nmore\n")
    (ws / "clean.txt").write_text("nothing here\n")
    scan = neutralise_copies(ws, scrub, since)
    assert sorted(scan.neutralised) == [
        "copy.py (a copy of reference answer.py)",
        "deep/er/notes.txt (reference content)",
        "model.bin (a copy of reference model.bin)",
    ]
    assert LINE not in (ws / "copy.py").read_text() and "removed" in (ws / "copy.py").read_text()
    assert (ws / "deep" / "er" / "notes.txt").read_text().startswith("my notes\n")
    assert LINE not in (ws / "deep" / "er" / "notes.txt").read_text()
    assert (ws / "clean.txt").read_text() == "nothing here\n"
    assert not scan.unchecked


def test_files_changed_before_the_reference_appeared_are_left_alone(tmp_path: Path) -> None:
    ws, scrub = _setup(tmp_path)
    (ws / "old.py").write_text(f"{LINE}\n")  # e.g. the agent's own guess, written during its turn
    scan = neutralise_copies(ws, scrub, time.time() + 5)
    assert scan.neutralised == [] and LINE in (ws / "old.py").read_text()


def test_a_backdated_modification_time_does_not_hide_a_copy(tmp_path: Path) -> None:
    ws, scrub = _setup(tmp_path)
    since = time.time()
    copy = ws / "copy.py"
    copy.write_text(f"{LINE}\n")
    os.utime(copy, (since - 3600, since - 3600))  # `touch -d` moves mtime; ctime moves with it
    assert [s.split(" ")[0] for s in neutralise_copies(ws, scrub, since).neutralised] == ["copy.py"]


def test_links_are_not_followed_out_of_the_workspace(tmp_path: Path) -> None:
    ws, scrub = _setup(tmp_path)
    outside = tmp_path / "outside.py"
    since = time.time()
    outside.write_text(f"{LINE}\n")
    (ws / "link.py").symlink_to(outside)
    (ws / "linkdir").symlink_to(tmp_path)
    scan = neutralise_copies(ws, scrub, since)
    assert scan.neutralised == [] and LINE in outside.read_text()


def test_what_could_not_be_fully_checked_is_reported(tmp_path: Path, monkeypatch) -> None:
    ws, scrub = _setup(tmp_path)
    monkeypatch.setattr(reference_copies, "MAX_SCANNED", 64)
    since = time.time()
    (ws / "big.txt").write_text("x" * 100)
    assert neutralise_copies(ws, scrub, since).unchecked == ["big.txt: only its first 64 bytes were checked"]
    monkeypatch.setattr(reference_copies, "MAX_FILES", 1)
    (ws / "b.txt").write_text("y")
    assert "1 of 2 changed files were not checked" in neutralise_copies(ws, scrub, since).unchecked


def test_a_large_file_holding_reference_content_is_replaced_whole(tmp_path: Path, monkeypatch) -> None:
    ws, scrub = _setup(tmp_path)
    monkeypatch.setattr(reference_copies, "MAX_SCANNED", 128)
    since = time.time()
    (ws / "big.py").write_text(f"{LINE}\n" + "z" * 500)
    scan = neutralise_copies(ws, scrub, since)
    assert scan.neutralised == ["big.py (reference content)"]
    assert (ws / "big.py").read_text().startswith("[a file holding reference content removed")
