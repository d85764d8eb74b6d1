"""Payloads of the task page (one replicate's task.json plus its files) and of a file preview."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from coder_eval.board.paths import PathRefusedError, contained, is_inside
from coder_eval.models.results import EvaluationResult, JudgeCriterionResult
from coder_eval.records.layout import ARTIFACTS_DIR, TASK_LOG

LOG_TAIL_BYTES = 64 * 1024
PREVIEW_BYTES = 256 * 1024
TRANSCRIPT_BYTES = 256 * 1024
MAX_LISTED_FILES = 2000


def read_tail(path: Path, limit: int) -> tuple[str, bool]:
    """The last `limit` bytes of a file as text, starting at a line boundary; and whether it was cut."""
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - limit))
            data = fh.read()
    except OSError:
        return "", False
    cut = size > limit
    if cut and b"\n" in data:
        data = data[data.index(b"\n") + 1 :]
    return data.decode("utf-8", errors="replace"), cut


def read_head(path: Path, limit: int) -> tuple[bytes, bool]:
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    return data[:limit], len(data) > limit


def looks_binary(data: bytes) -> bool:
    if b"\x00" in data[:8192]:
        return True
    try:
        data[:8192].decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(data[:8192]) - 4  # a multi-byte character cut at the edge is still text
    return False


def list_files(
    base: Path, directory: Path, *, skip: set[str] | None = None, limit: int | None = MAX_LISTED_FILES
) -> list[dict[str, Any]]:
    """Regular files under `directory` (paths relative to `base`); links that leave `base` are left out."""
    out: list[dict[str, Any]] = []
    if not directory.is_dir() or not is_inside(base, directory):
        return out
    for root, dirs, files in os.walk(directory, followlinks=False):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if not (skip and here == directory and d in skip))
        for name in sorted(files):
            path = here / name
            if not is_inside(base, path) or not path.is_file():
                continue
            out.append({"path": path.relative_to(base).as_posix(), "size": path.stat().st_size})
            if limit is not None and len(out) >= limit:
                return out
    return out


def _transcripts(result: EvaluationResult, task_dir: Path) -> list[dict[str, Any]]:
    """Judge transcripts named by judge results, read when they lie inside the replicate's directory."""
    out = []
    for criterion in result.success_criteria_results:
        if not isinstance(criterion, JudgeCriterionResult) or not criterion.transcript_path:
            continue
        entry: dict[str, Any] = {
            "criterion": criterion.description or criterion.criterion_type,
            "path": criterion.transcript_path,
            "text": None,
        }
        try:
            path = contained(task_dir, criterion.transcript_path)
            data, cut = read_head(path, TRANSCRIPT_BYTES)
            entry["text"] = data.decode("utf-8", errors="replace")
            entry["truncated"] = cut
        except (PathRefusedError, OSError):
            entry["text"] = None
        out.append(entry)
    return out


def task_payload(run_id: str, run_dir: Path, rel: str, result: EvaluationResult) -> dict[str, Any]:
    """task.json as stored, plus the log tail, the file lists and any judge transcripts."""
    task_dir = contained(run_dir, rel)
    log, log_cut = read_tail(task_dir / TASK_LOG, LOG_TAIL_BYTES)
    return {
        "run_id": run_id,
        "path": rel,
        "result": result.model_dump(mode="json"),
        "log_tail": log,
        "log_truncated": log_cut,
        "artifacts": list_files(run_dir, task_dir / ARTIFACTS_DIR),
        "files": list_files(run_dir, task_dir, skip={ARTIFACTS_DIR}),
        "transcripts": _transcripts(result, task_dir),
    }


def preview_payload(run_dir: Path, rel: str) -> dict[str, Any]:
    """The first 256 KB of a file as text, or a note that it is binary."""
    path = contained(run_dir, rel)
    if not path.is_file():
        raise FileNotFoundError(rel)
    data, cut = read_head(path, PREVIEW_BYTES)
    binary = looks_binary(data)
    return {
        "path": rel,
        "size": path.stat().st_size,
        "binary": binary,
        "truncated": cut,
        "text": None if binary else data.decode("utf-8", errors="replace"),
    }
