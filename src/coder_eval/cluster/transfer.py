"""Bring a unit's records and artifacts back from the machine it ran on.

The worker packs the unit directory into one tar (task.json travels as text beside it); the
driver unpacks everything else first and writes task.json last, so a task.json on disk still
means the unit is complete even if the driver stops half way through.

The tar is built in memory and reads every byte of a file, holes included, so files are capped by
their length (`PACK_FILE_CAP`, `PACK_TOTAL_CAP`): one over is left out and named, with the reason,
in `TRANSFER_SKIPPED` beside the unit's files.
"""

from __future__ import annotations

import io
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

from coder_eval.common.bounded_copy import CopyBudget
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import TASK_JSON

PACK_FILE_CAP = 512 * 1024 * 1024
PACK_TOTAL_CAP = 2 * 1024**3
TRANSFER_SKIPPED = "transfer-skipped.txt"


@dataclass(frozen=True)
class UnitFiles:
    """A unit directory in transit: every file but task.json as a tar, and task.json's text."""

    archive: bytes
    task_json: str


def pack_unit(directory: Path, old_root: Path, new_root: Path) -> UnitFiles:
    """Pack `directory`; paths under the worker's run dir in task.json are moved onto the driver's."""
    buffer = io.BytesIO()
    budget = CopyBudget(per_file=PACK_FILE_CAP, total=PACK_TOTAL_CAP)

    def bounded(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if info.isreg():
            why = budget.refuse(info.name, info.size, what="long")
            if why is not None:
                budget.notes.append(why)
                return None
            budget.used += info.size
        return info

    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for child in sorted(directory.iterdir()):
            if child.name != TASK_JSON:
                tar.add(child, arcname=child.name, filter=bounded)
        if budget.notes:
            listing = (
                "Left out when the unit came back from its worker:\n" + "".join(f"- {note}\n" for note in budget.notes)
            ).encode()
            entry = tarfile.TarInfo(TRANSFER_SKIPPED)
            entry.size = len(listing)
            tar.addfile(entry, io.BytesIO(listing))
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
