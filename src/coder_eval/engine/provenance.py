"""What every task record says about where it came from: the harness environment and the task config."""

from __future__ import annotations

import platform
import sys
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


def task_config_record(task: LoadedTask) -> dict[str, Any]:
    """The task as resolved (explicitly set fields only), its source file and dataset row."""
    return {
        "resolved": task.definition.model_dump(mode="json", exclude_unset=True),
        "source_file": str(task.source_file.resolve()),
        "row": task.row,
    }
