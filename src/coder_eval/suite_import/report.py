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
