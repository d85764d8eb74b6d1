"""A hostile agent's sparse file stays sparse in every copy the harness makes of its work.

The real Claude Code CLI on the scripted model leaves a file of 200 GB apparent size (a few bytes
of data). Its unit's workspace lies on another file system than the run directory (the scratch
directory is a tmpfs), so preserving the artifacts is a copy, not a rename; then `board --export`
copies the run and zips it, and `evaluate` grades a copy of the preserved directory. No copy may
turn the holes into written zeros: the disk the whole test leaves behind stays small, the copies
keep the file's length, the zip names the file it could not hold, and the grades are honest. It
runs under bubblewrap and docker, with the harness as root and as an ordinary user.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest
from hygiene_kit import claude_agent, criteria, disk_bytes, need_driver, records, run_disk_capped, tree, write_task
from operators import DRIVERS, OPERATORS, Operator, operator

pytestmark = pytest.mark.slow

SIZE = 200 * 1024**3
SMALL = 64 * 1024 * 1024


def _tmpfs() -> Path | None:
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and os.stat(shm).st_dev != os.stat(tempfile.gettempdir()).st_dev:
        return shm
    return None


def _capped(op: Operator, args: list[str | Path], scratch: Path) -> tuple[int, str, int]:
    """A command stopped the moment this test's files pass 1 GiB on disk (a copy that expands)."""
    return run_disk_capped(op, args, env=None, watch=[op.work, scratch], cap=1024**3)


def _check_sparse(path: Path) -> None:
    info = os.stat(path)
    assert info.st_size == SIZE + len("tail"), path
    assert info.st_blocks * 512 < 1024 * 1024, f"{path} holds {info.st_blocks * 512} bytes on disk"
    with open(path, "rb") as fh:
        fh.seek(SIZE)
        assert fh.read() == b"tail"


@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize("driver", DRIVERS)
def test_sparse_files_stay_sparse_through_artifacts_export_and_evaluate(driver: str, who: str) -> None:
    need_driver(driver)
    shm = _tmpfs()
    if shm is None:
        pytest.skip("needs a second file system (/dev/shm) to put the workspace on")
    spec = {
        "task_id": "sparse",
        "description": "a 200 GB sparse file in the workspace",
        "initial_prompt": "Make the file.",
        "agent": claude_agent(),
        # the default max_disk_mb (RLIMIT_FSIZE) would refuse the 200 GB length outright; lifted
        # here so that what is tested is how the harness copies such a file
        "sandbox": {"driver": driver, "limits": {"max_disk_mb": None}},
        "success_criteria": [
            {"type": "file_exists", "path": "big.img", "description": "made"},
            {"type": "file_exists", "path": "never-made.txt", "description": "an honest failure"},
        ],
    }
    script = {"steps": [{"run_command": "truncate -s 200G big.img && printf tail >> big.img && ls -ls big.img"}]}
    with operator(who) as op:
        task = write_task(op.work / "suite", spec, script)
        run_dir = op.work / "run"
        run_dir.mkdir()
        scratch = Path(tempfile.mkdtemp(dir=shm, prefix="coder-eval-scratch-"))
        (run_dir / ".sandboxes").symlink_to(scratch)  # workspaces on the tmpfs, artifacts on this disk
        op.own(op.work / "suite", run_dir, scratch)
        before = tree(op.work, skip=(run_dir,))
        try:
            _copies_stay_sparse(op, task, run_dir, scratch)
            assert tree(op.work, skip=(run_dir, op.work / "export", op.work / "graded")) == before
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _copies_stay_sparse(op: Operator, task: Path, run_dir: Path, scratch: Path) -> None:
    code, out, _ = _capped(op, ["run", task, "--run-dir", run_dir, "-b", "script"], scratch)
    (record,) = records(run_dir)
    assert record["final_status"] == "FAILURE" and code == 1, out
    assert criteria(record)["made"]["score"] == 1.0
    artifacts = Path(record["sandbox_path"])
    assert artifacts.is_relative_to(run_dir) and not any(scratch.iterdir())  # moved off the tmpfs
    _check_sparse(artifacts / "big.img")

    export = op.work / "export"
    code, out, _ = _capped(op, ["board", run_dir, "--export", export], scratch)
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

    graded = op.work / "graded"
    code, out, _ = _capped(op, ["evaluate", task, artifacts, "--run-dir", graded], scratch)
    assert code == 1, out  # the same honest failure
    (again,) = graded.rglob("big.img")
    _check_sparse(again)

    assert disk_bytes(op.work) < SMALL, f"{disk_bytes(op.work) / 1048576:.0f} MiB on disk"
    assert disk_bytes(scratch) < SMALL
