"""What every task record says about where it came from: the harness environment and the task config."""

from __future__ import annotations

import platform
import sys
from pathlib import Path
from typing import Any

from coder_eval import __version__
from coder_eval.loading.loader import LoadedTask


def environment_info() -> dict[str, Any]:
    """Harness version, Python version and platform, stored in each task.json."""
    return {
        "coder_eval_version": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }


SOURCE_YAML_LIMIT = 256_000
"""Characters of the task file kept in task.json; a task file is rarely near this."""


def _source_yaml(path: Path) -> str | None:
    """The task file as written, so a record shows what the author wrote beside what resolved."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text if len(text) <= SOURCE_YAML_LIMIT else text[:SOURCE_YAML_LIMIT] + "\n# ... (truncated)\n"


def task_config_record(task: LoadedTask) -> dict[str, Any]:
    """The task as resolved (explicitly set fields only), its source YAML, its source file and dataset row."""
    return {
        "resolved": task.definition.model_dump(mode="json", exclude_unset=True),
        "source_yaml": _source_yaml(task.source_file),
        "source_file": str(task.source_file.resolve()),
        "row": task.row,
    }
