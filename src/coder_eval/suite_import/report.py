"""What an import did: the cases it wrote, each with what it could not carry, and the ones it refused."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from coder_eval.loading.loader import validate_document


@dataclass
class ImportedCase:
    source: Path
    task_file: Path
    losses: list[str] = field(default_factory=list)


@dataclass
class Refused:
    source: Path
    reason: str


@dataclass
class ImportReport:
    imported: list[ImportedCase] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    experiment: Path | None = None
    notes: list[str] = field(default_factory=list)
    """Losses of the suite as a whole (not of one case)."""


REPORT_FILE = "import-report.txt"


def report_lines(report: ImportReport) -> list[str]:
    """The report as text: each case imported (what it did not carry under it) or refused, the suite's notes."""
    lines: list[str] = []
    for item in report.imported:
        lines.append(f"imported {item.source} -> {item.task_file}")
        lines.extend(f"  not imported: {loss}" for loss in item.losses)
    lines.extend(f"refused {r.source}: {r.reason}" for r in report.refused)
    lines.extend(f"suite: not imported: {note}" for note in report.notes)
    lines.append(f"{len(report.imported)} imported, {len(report.refused)} refused")
    return lines


def write_report_file(report: ImportReport, out: Path, command: str) -> Path:
    """OUT/import-report.txt: what the import carried and lost, kept beside the tasks (and in a run's suite/)."""
    path = out / REPORT_FILE
    path.write_text(f"# {command}\n" + "\n".join(report_lines(report)) + "\n", encoding="utf-8")
    return path


def slug(text: str) -> str:
    """A task id: lower case, letters, digits and dashes."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:90] or "case"


def dump_yaml(doc: dict[str, Any], header: str) -> str:
    return header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def write_task(doc: dict[str, Any], task_file: Path, header: str) -> None:
    """Write the task file and validate it as `plan` would (a TaskConfigError names what is wrong)."""
    task_file.parent.mkdir(parents=True, exist_ok=True)
    task_file.write_text(dump_yaml(doc, header), encoding="utf-8")
    validate_document(yaml.safe_load(task_file.read_text(encoding="utf-8")), task_file)


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
