"""Bring a unit's records and artifacts back from the machine it ran on.

The worker packs the unit directory into one tar (task.json travels as text beside it); the
driver unpacks everything else first and writes task.json last, so a task.json on disk still
means the unit is complete even if the driver stops half way through.
"""

from __future__ import annotations

import io
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import TASK_JSON


@dataclass(frozen=True)
class UnitFiles:
    """A unit directory in transit: every file but task.json as a tar, and task.json's text."""

    archive: bytes
    task_json: str


def pack_unit(directory: Path, old_root: Path, new_root: Path) -> UnitFiles:
    """Pack `directory`; paths under the worker's run dir in task.json are moved onto the driver's."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for child in sorted(directory.iterdir()):
            if child.name != TASK_JSON:
                tar.add(child, arcname=child.name)
    text = (directory / TASK_JSON).read_text(encoding="utf-8")
    return UnitFiles(buffer.getvalue(), text.replace(str(old_root), str(new_root)))


def unpack_unit(files: UnitFiles, directory: Path) -> None:
    """Replace `directory` with the packed unit: its files first, task.json last (atomically)."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(files.archive), mode="r") as tar:
        tar.extractall(directory, filter="tar")
    write_text_atomic(directory / TASK_JSON, files.task_json)
