"""Keep credentials out of sandboxes and out of every record we write."""

from __future__ import annotations

import os
import re
from functools import lru_cache

_SECRET_NAME = re.compile(
    r"(API_KEY|_KEY$|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|CONNECTION_STRING|_AUTH$|^AWS_SESSION)",
    re.IGNORECASE,
)
_MIN_SECRET_LEN = 8
REDACTED = "[redacted]"


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def scrub_env(env: dict[str, str]) -> dict[str, str]:
    """The environment without anything that looks like a credential."""
    return {k: v for k, v in env.items() if not _secret_name_cached(k)}


@lru_cache(maxsize=4096)
def _secret_name_cached(name: str) -> bool:
    return is_secret_name(name)


class Redactor:
    """Replaces the values of secret environment variables in text."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        source = os.environ if env is None else env
        values = frozenset(v for k, v in source.items() if _secret_name_cached(k) and len(v) >= _MIN_SECRET_LEN)
        self._pattern = _pattern_for(values)

    def __call__(self, text: str) -> str:
        return self._pattern.sub(REDACTED, text) if self._pattern is not None else text


@lru_cache(maxsize=16)
def _pattern_for(values: frozenset[str]) -> re.Pattern[str] | None:
    if not values:
        return None
    return re.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)))
