"""A unit packed on a worker leaves out files too long to carry, and says which."""

from __future__ import annotations

from pathlib import Path

from coder_eval.cluster.transfer import TRANSFER_SKIPPED, pack_unit, unpack_unit


def test_a_sparse_artifact_does_not_travel_and_is_named(tmp_path: Path) -> None:
    unit = tmp_path / "worker" / "u"
    (unit / "artifacts").mkdir(parents=True)
    (unit / "task.json").write_text('{"sandbox_path": "' + str(tmp_path / "worker") + '"}')
    (unit / "task.log").write_text("log\n")
    with open(unit / "artifacts" / "huge.bin", "wb") as fh:
        fh.truncate(200 * 1024**3)
    files = pack_unit(unit, tmp_path / "worker", tmp_path / "driver")
    assert len(files.archive) < 1024 * 1024
    unpack_unit(files, tmp_path / "driver" / "u")
    back = tmp_path / "driver" / "u"
    assert (back / "task.log").read_text() == "log\n" and not (back / "artifacts" / "huge.bin").exists()
    assert "artifacts/huge.bin: 200.0 GiB long" in (back / TRANSFER_SKIPPED).read_text()
    assert str(tmp_path / "driver") in (back / "task.json").read_text()
