"""A hostile agent's sparse file stays sparse in every copy the harness makes of its work.

The real Claude Code CLI on the scripted model leaves a file of 200 GB apparent size (a few bytes
of data). Its unit's workspace lies on another file system than the run directory (the scratch
directory is a tmpfs), so preserving the artifacts is a copy, not a rename; then `board --export`
copies the run and zips it, and `evaluate` grades a copy of the preserved directory. No copy may
turn the holes into written zeros: the disk the whole test leaves behind stays small, the copies
keep the file's length, the zip names the file it could not hold, and the grades are honest.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest
from hygiene_kit import (
    claude_agent,
    criteria,
    disk_bytes,
    harness_env,
    need_driver,
    records,
    run_disk_capped,
    tree,
    write_task,
)

pytestmark = pytest.mark.slow

SIZE = 200 * 1024**3
SMALL = 64 * 1024 * 1024


def _tmpfs() -> Path | None:
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and os.stat(shm).st_dev != os.stat(tempfile.gettempdir()).st_dev:
        return shm
    return None


def _capped(args: list[str | Path], cwd: Path, scratch: Path) -> tuple[int, str, int]:
    """A command stopped the moment this test's files pass 1 GiB on disk (a copy that expands)."""
    return run_disk_capped(args, cwd=cwd, env=harness_env(), watch=[cwd, scratch], cap=1024**3)


def _check_sparse(path: Path) -> None:
    info = os.stat(path)
    assert info.st_size == SIZE + len("tail"), path
    assert info.st_blocks * 512 < 1024 * 1024, f"{path} holds {info.st_blocks * 512} bytes on disk"
    with open(path, "rb") as fh:
        fh.seek(SIZE)
        assert fh.read() == b"tail"


def test_sparse_files_stay_sparse_through_artifacts_export_and_evaluate(tmp_path: Path) -> None:
    need_driver("bubblewrap")
    shm = _tmpfs()
    if shm is None:
        pytest.skip("needs a second file system (/dev/shm) to put the workspace on")
    task = write_task(
        tmp_path / "suite",
        {
            "task_id": "sparse",
            "description": "a 200 GB sparse file in the workspace",
            "initial_prompt": "Make the file.",
            "agent": claude_agent(),
            "sandbox": {"driver": "bubblewrap"},
            "success_criteria": [
                {"type": "file_exists", "path": "big.img", "description": "made"},
                {"type": "file_exists", "path": "never-made.txt", "description": "an honest failure"},
            ],
        },
        {"steps": [{"run_command": "truncate -s 200G big.img && printf tail >> big.img && ls -ls big.img"}]},
    )
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    scratch = Path(tempfile.mkdtemp(dir=shm, prefix="coder-eval-scratch-"))
    (run_dir / ".sandboxes").symlink_to(scratch)  # workspaces on the tmpfs, artifacts on this disk
    before = tree(tmp_path, skip=(run_dir,))
    try:
        code, out, _ = _capped(["run", task, "--run-dir", run_dir, "-b", "script"], tmp_path, scratch)
        (record,) = records(run_dir)
        assert record["final_status"] == "FAILURE" and code == 1, out
        assert criteria(record)["made"]["score"] == 1.0
        artifacts = Path(record["sandbox_path"])
        assert artifacts.is_relative_to(run_dir) and not any(scratch.iterdir())  # moved off the tmpfs
        _check_sparse(artifacts / "big.img")

        export = tmp_path / "export"
        code, out, _ = _capped(["board", run_dir, "--export", export], tmp_path, scratch)
        assert code == 0, out
        assert "left out" in out and "SKIPPED.txt" in out
        (copied,) = export.rglob("big.img")
        _check_sparse(copied)
        (archive,) = export.rglob("*.zip")
        with zipfile.ZipFile(archive) as zf:
            assert not any(name.endswith("big.img") for name in zf.namelist())
            listing = next(zf.read(n) for n in zf.namelist() if n.endswith("SKIPPED.txt")).decode()
        assert "big.img: 200.0 GiB long" in listing
        assert "big.img" in (export / "files" / "SKIPPED.txt").read_text()

        graded = tmp_path / "graded"
        code, out, _ = _capped(["evaluate", task, artifacts, "--run-dir", graded], tmp_path, scratch)
        assert code == 1, out  # the same honest failure
        (again,) = graded.rglob("big.img")
        _check_sparse(again)

        assert disk_bytes(tmp_path) < SMALL, f"{disk_bytes(tmp_path) / 1048576:.0f} MiB on disk"
        assert disk_bytes(scratch) < SMALL
        assert tree(tmp_path, skip=(run_dir, export, graded)) == before  # nothing written beside them
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
