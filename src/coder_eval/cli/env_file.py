"""Load `.env` from the working directory into the environment; variables already set win.

`.env.example` is the template a user copies to `.env`; it is never loaded itself, since its
values are placeholders.
"""

from __future__ import annotations

from pathlib import Path

ENV_FILE = ".env"


def load_env_file(directory: Path | None = None) -> Path | None:
    """Read `<directory>/.env` (default: the working directory) without overriding; return its path."""
    path = (directory or Path.cwd()) / ENV_FILE
    if not path.is_file():
        return None
    from dotenv import load_dotenv

    load_dotenv(path, override=False)
    return path
