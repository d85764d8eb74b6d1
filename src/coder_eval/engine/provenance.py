"""What every task record says about where it came from: the harness environment and the task config."""

from __future__ import annotations

import hashlib
import os
import platform
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from coder_eval import __version__
from coder_eval.common.shared_cache import SharedDerived
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.task import TaskDefinition


def environment_info() -> dict[str, Any]:
    """Harness version, Python version and platform, stored in each task.json (a fresh dict each call)."""
    return {"coder_eval_version": __version__, "python": sys.version.split()[0], "platform": _platform()}


@lru_cache(maxsize=1)
def _platform() -> str:
    return platform.platform()


SOURCE_YAML_LIMIT = 256_000
"""Characters of the task file kept in task.json; a task file is rarely near this."""
ROW_SOURCE_YAML_LIMIT = 16_000
"""A dataset row keeps the task file's text only up to this size: beyond it the file is mostly
other rows, and copying it into every row's record made a run's records grow with the square of
its row count. The row itself, the resolved task and the file's digest are always recorded."""


@lru_cache(maxsize=64)
def _read_source(path: Path, mtime_ns: int, size: int) -> tuple[str | None, str | None]:
    """(text, sha256) of a task file; cached per (path, mtime, size), so rows of one file read it once."""
    del mtime_ns, size  # cache key only: an edited file is read again
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None, None
    return text, hashlib.sha256(data).hexdigest()


def _source(path: Path) -> tuple[str | None, str | None]:
    try:
        info = path.stat()
    except OSError:
        return None, None
    return _read_source(path, info.st_mtime_ns, info.st_size)


def _source_yaml(text: str | None, *, row: bool) -> str | None:
    """The task file as written, so a record shows what the author wrote beside what resolved."""
    if text is None or (row and len(text) > ROW_SOURCE_YAML_LIMIT):
        return None
    return text if len(text) <= SOURCE_YAML_LIMIT else text[:SOURCE_YAML_LIMIT] + "\n# ... (truncated)\n"


@lru_cache(maxsize=64)
def _resolved_path(path: Path, cwd: str) -> str:
    del cwd  # cache key only: a relative path resolves against it
    return str(path.resolve())


_dumps: SharedDerived[dict[str, Any]] = SharedDerived()


def _resolved(definition: TaskDefinition) -> dict[str, Any]:
    """The definition's explicitly set fields as JSON values (one shared, read-only dict per definition)."""
    return _dumps.get(definition, compute=lambda: definition.model_dump(mode="json", exclude_unset=True))


def task_config_record(task: LoadedTask) -> dict[str, Any]:
    """The task as resolved (explicitly set fields only), its source YAML, its source file and dataset row."""
    text, digest = _source(task.source_file)
    record: dict[str, Any] = {
        "resolved": _resolved(task.definition),
        "source_yaml": _source_yaml(text, row=task.row_id is not None),
        "source_file": _resolved_path(task.source_file, os.getcwd()),
        "source_sha256": digest,
        "row": task.row,
    }
    if text is not None and record["source_yaml"] is None:
        record["source_yaml_omitted"] = (
            f"the task file ({len(text)} characters) holds the whole dataset; "
            "this row's record keeps its row, the resolved task and the file's digest"
        )
    return record
