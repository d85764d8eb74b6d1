"""Logging for the CLI: LOG_LEVEL (default INFO), -v for DEBUG, --log-file / LOG_TO_FILE for a file.

Console records go to stderr so stdout stays the command's output (Markdown, JSON, SARIF).
Calling it again (the root option, then a command's own -v) replaces the handlers it added.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

from coder_eval.errors import UsageError

_MARK = "_coder_eval_handler"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
DEFAULT_LOG_FILE = "coder-eval.log"
_TRUE = ("1", "true", "yes", "on")


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever sys.stderr is at the time, so a swapped stream (tests, Typer's runner) is followed."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def _level(verbose: bool) -> int:
    if verbose:
        return logging.DEBUG
    name = os.environ.get("LOG_LEVEL", "INFO").strip().upper()
    level = logging.getLevelName(name)
    if not isinstance(level, int):
        raise UsageError(f"LOG_LEVEL={name!r} is not a logging level; use DEBUG, INFO, WARNING or ERROR")
    return level


def configure_logging(*, verbose: bool = False, log_file: Path | None = None) -> None:
    """Set the `coder_eval` logger's level and handlers from the flags and the environment."""
    logger = logging.getLogger("coder_eval")
    for handler in [h for h in logger.handlers if getattr(h, _MARK, False)]:
        logger.removeHandler(handler)
        handler.close()
    level = _level(verbose)
    logger.setLevel(level)
    console = _StderrHandler()
    # The console shows warnings unless asked for more: INFO lines would bury the progress display.
    console.setLevel(level if verbose or "LOG_LEVEL" in os.environ else logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handlers: list[logging.Handler] = [console]
    if log_file is None and os.environ.get("LOG_TO_FILE", "").strip().lower() in _TRUE:
        log_file = Path(DEFAULT_LOG_FILE)
    if log_file is not None:
        try:
            log_file.parent.mkdir(parents=True, exist_ok=True)
            file_handler = logging.FileHandler(log_file, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--log-file {log_file}: cannot open it for writing ({exc.strerror or exc})") from None
        file_handler.setLevel(level)
        file_handler.setFormatter(logging.Formatter(FORMAT))
        handlers.append(file_handler)
    for handler in handlers:
        setattr(handler, _MARK, True)
        logger.addHandler(handler)
    from coder_eval import __version__

    logger.info("coder-eval %s, log level %s: %s", __version__, logging.getLevelName(level), " ".join(sys.argv[1:]))
