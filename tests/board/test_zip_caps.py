"""A run's zip reads every byte of what it holds, so it takes files by their length and names what it leaves out."""

from __future__ import annotations

import zipfile
from pathlib import Path

from coder_eval.board import server
from coder_eval.board.server import write_run_zip


def test_a_long_sparse_file_is_left_out_of_the_zip_and_named(tmp_path: Path, monkeypatch) -> None:
    run = tmp_path / "run"
    (run / "u" / "artifacts").mkdir(parents=True)
    (run / "run.json").write_text("{}")
    with open(run / "u" / "artifacts" / "huge.bin", "wb") as fh:
        fh.truncate(200 * 1024**3)  # 200 GiB long, nothing on disk
    monkeypatch.setattr(server, "ZIP_TOTAL_CAP", 10_000)
    (run / "u" / "a.txt").write_bytes(b"a" * 6000)
    (run / "u" / "b.txt").write_bytes(b"b" * 6000)
    notes = write_run_zip(run, tmp_path / "run.zip", "r")
    with zipfile.ZipFile(tmp_path / "run.zip") as zf:
        names = set(zf.namelist())
        listing = zf.read("r/SKIPPED.txt").decode()
    assert names == {"r/run.json", "r/u/a.txt", "r/SKIPPED.txt"}
    assert "u/artifacts/huge.bin: 200.0 GiB long, over the 256.0 MiB" in listing
    assert "u/b.txt: 5.9 KiB long would take the copy over its 9.8 KiB in all" in listing
    assert len(notes) == 2
