"""task.log: a plain-text, timestamped account of what happened to one task.

Messages often quote the agent (its errors, its words through the event stream), so each one is
cleaned first (common/untrusted_text.py: no escape sequence, control character or carriage
return reaches the file), and only a message's first line starts with a timestamp: its further
lines are indented, so no line the agent wrote can pass for one the harness logged.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from coder_eval.common.untrusted_text import clean_text
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import TASK_LOG


class TaskLog:
    """Collects log lines in memory and writes them once, atomically."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, message: str) -> None:
        now = datetime.now(UTC)
        stamp = f"{now.hour:02d}:{now.minute:02d}:{now.second:02d}.{now.microsecond // 1000:03d}"
        for i, line in enumerate(clean_text(message).splitlines() or [""]):
            self.lines.append(f"{stamp} {line}" if i == 0 else f"{' ' * len(stamp)} {line}")

    def write(self, directory: Path) -> Path:
        path = directory / TASK_LOG
        write_text_atomic(path, "\n".join(self.lines) + "\n")
        return path
