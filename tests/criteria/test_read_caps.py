"""Every criterion read is capped in bytes and stops at the unit's deadline; over the cap fails, saying so."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from coder_eval.criteria import bounded
from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade
from coder_eval.criteria.invocation_log import MAX_LOG_BYTES, InvocationLogError, read_invocations
from coder_eval.judges.prompt import files_block
from coder_eval.models.criteria import parse_criterion
from coder_eval.sandbox.deadline import Deadline

GIB = 1024**3


def _sparse(path: Path, size: int, tail: bytes = b"") -> Path:
    with open(path, "wb") as fh:
        fh.truncate(size)
        if tail:
            fh.seek(size)
            fh.write(tail)
    return path


def _grade(root: Path, spec: dict, deadline: Deadline | None = None):  # type: ignore[no-untyped-def]
    ctx = CheckContext(root=root, deadline=deadline)
    return grade([parse_criterion({"description": "d", **spec})], ctx).results[0]


def test_a_huge_sparse_file_is_refused_from_its_size_at_once(tmp_path: Path) -> None:
    _sparse(tmp_path / "big.log", 200 * GIB, b"NEEDLE")
    start = time.monotonic()
    for spec in (
        {"type": "file_contains", "path": "big.log", "includes": ["NEEDLE"]},
        {"type": "file_contains", "path": "big.log", "excludes": ["FORBIDDEN"]},  # absent ≠ pass
        {"type": "file_check", "path": "big.log", "excludes": ["FORBIDDEN"]},
        {"type": "file_matches_regex", "path": "big.log", "pattern": "NEEDLE"},
        {"type": "json_check", "path": "big.log"},
    ):
        result = _grade(tmp_path, spec)
        assert result.score == 0.0 and not result.passed, spec
        assert "over the" in result.details and "this criterion reads" in result.details, result.details
        assert result.evaluation_status == "evaluated"
    assert time.monotonic() - start < 2  # nothing was read


def test_max_bytes_raises_the_cap(tmp_path: Path) -> None:
    _sparse(tmp_path / "a.log", 2 * 1024 * 1024, b"NEEDLE")
    spec = {"type": "file_contains", "path": "a.log", "includes": ["NEEDLE"]}
    assert _grade(tmp_path, {**spec, "max_bytes": 1024 * 1024}).score == 0.0
    assert _grade(tmp_path, {**spec, "max_bytes": 4 * 1024 * 1024}).score == 1.0
    assert _grade(tmp_path, spec).score == 1.0  # well under the 1 GiB default


def test_a_file_that_grows_past_the_cap_while_read_is_refused(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "grow.log"
    path.write_bytes(b"a" * 1000)
    real = bounded.open_checked

    def open_then_grow(p: Path, root: Path | None, *, limit: int | None):  # type: ignore[no-untyped-def]
        handle = real(p, root, limit=limit)
        with open(p, "ab") as fh:  # the agent's writer is gone by grading; simulate the race
            fh.write(b"b" * 5000)
        return handle

    monkeypatch.setattr(bounded, "open_checked", open_then_grow)
    with pytest.raises(bounded.UnreadableFileError, match="grew while it was read"):
        bounded.found_substrings(path, ["zzz"], limit=2000)
    path.write_bytes(b"a" * 1000)
    with pytest.raises(bounded.UnreadableFileError, match="grew while it was read"):
        bounded.read_text(path, limit=2000)


def test_reads_stop_when_the_deadline_passes(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"x" * (3 * bounded.CHUNK_BYTES))
    expired = Deadline(0.0)
    with pytest.raises(bounded.UnreadableFileError, match="deadline passed"):
        bounded.found_substrings(path, ["needle"], deadline=expired)
    with pytest.raises(bounded.UnreadableFileError, match="deadline passed"):
        bounded.read_text(path, deadline=expired)
    result = _grade(tmp_path, {"type": "file_contains", "path": "f.txt", "includes": ["x"]}, deadline=expired)
    assert result.score == 0.0 and "deadline passed" in result.details


def test_an_invocation_log_over_its_cap_is_unusable(tmp_path: Path) -> None:
    log = _sparse(tmp_path / "calls.jsonl", MAX_LOG_BYTES + 10)
    with pytest.raises(InvocationLogError, match="over 32 MiB"):
        read_invocations(log, tmp_path)


def test_a_judge_file_block_reads_a_bounded_prefix(tmp_path: Path) -> None:
    _sparse(tmp_path / "huge.txt", 50 * GIB)
    (tmp_path / "small.txt").write_text("hello")
    spec = parse_criterion(
        {
            "type": "llm_judge",
            "description": "d",
            "prompt": "p",
            "files": ["huge.txt", "small.txt"],
            "max_file_chars": 100,
        }
    )
    start = time.monotonic()
    block = files_block(spec, tmp_path, None, None)  # type: ignore[arg-type]
    assert time.monotonic() - start < 2
    assert f"the file is {50 * GIB} bytes" in block and "hello" in block
    assert len(block) < 2000


def test_regular_files_only(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    result = _grade(tmp_path, {"type": "file_contains", "path": "pipe", "includes": ["x"]})
    assert result.score == 0.0 and "not a regular file" in result.details
