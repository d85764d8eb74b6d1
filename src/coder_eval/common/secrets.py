"""Keep credentials out of sandboxes and out of every record we write."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache

_SECRET_NAME = re.compile(
    r"(API_?KEY|_KEY$|_KEY_ID$|TOKEN|SECRET|PASSWORD|PASSWD|(^|_)PASS($|_)|CREDENTIAL|PRIVATE"
    r"|CONNECTION_STRING|_AUTH$|^AWS_SESSION|^AWS_ACCESS_KEY|(^|_)DSN($|_)|WEBHOOK|(^|_)DATABASE_URL$|_DB_URL$)",
    re.IGNORECASE,
)
_URL_CREDENTIALS = re.compile(
    r"(?P<head>(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://[^/\s:@'\"]{1,256}:)(?P<secret>[^@\s/'\"]{1,256})(?=@)",
    re.IGNORECASE,
)
"""`scheme://user:password@host`: the password part."""
_SECRET_VALUES = re.compile(
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key ids
    r"|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"
    r"|https://(?:discord|discordapp)\.com/api/webhooks/[A-Za-z0-9/_-]+"
)
"""Values that are credentials whatever variable (or file) they sit in."""
_VALUE_MARKERS = ("AKIA", "ASIA", "hooks.slack.com", "/api/webhooks/")
_MIN_SECRET_LEN = 8
REDACTED = "[redacted]"


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def is_secret(name: str, value: str) -> bool:
    """A credential by its name, or by its value (a URL with a password, an AWS key id, a webhook)."""
    return _secret_name_cached(name) or bool(_URL_CREDENTIALS.search(value) or _SECRET_VALUES.search(value))


def scrub_env(env: dict[str, str]) -> dict[str, str]:
    """The environment without anything that looks like a credential."""
    return {k: v for k, v in env.items() if not is_secret(k, v)}


def secret_values(env: dict[str, str] | None = None) -> dict[str, str]:
    """Variable name -> value for every credential in `env` (default: the harness's environment)."""
    if env is None:
        return dict(_harness_secrets())
    return _secrets_in(env.items())


def _secrets_in(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    return {k: v for k, v in items if len(v) >= _MIN_SECRET_LEN and is_secret(k, v)}


_harness: list[tuple[dict[bytes, bytes], dict[str, str]]] = []
"""The last snapshot of the harness's environment and the credentials found in it."""


def _harness_secrets() -> dict[str, str]:
    """The credentials in os.environ, recomputed only when the environment changed since last time.

    Every record written is redacted against these, so they are asked for several times per unit;
    comparing a snapshot of the raw environment is far cheaper than testing every variable again.
    """
    raw = dict(os.environb) if os.supports_bytes_environ else {k.encode(): v.encode() for k, v in os.environ.items()}
    if _harness and _harness[0][0] == raw:
        return _harness[0][1]
    found = _secrets_in(os.environ.items())
    _harness[:] = [(raw, found)]
    return found


@lru_cache(maxsize=4096)
def _secret_name_cached(name: str) -> bool:
    return is_secret_name(name)


class Redactor:
    """Redacts credentials in text: the exact values of secret variables, and credential-shaped values
    (URL passwords, AWS key ids, webhook URLs) wherever they appear."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self._pattern = _pattern_for(frozenset(secret_values(env).values()))

    def __call__(self, text: str) -> str:
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        if "://" in text:  # cheap pre-checks: most records hold no URL and no key id at all
            text = _URL_CREDENTIALS.sub(lambda m: m.group("head") + REDACTED, text)
        if any(marker in text for marker in _VALUE_MARKERS):
            text = _SECRET_VALUES.sub(REDACTED, text)
        return text


@lru_cache(maxsize=16)
def _pattern_for(values: frozenset[str]) -> re.Pattern[str] | None:
    if not values:
        return None
    return re.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)))


def credential_shapes(text: str) -> list[str]:
    """Which kinds of credential-shaped values occur in `text` (for reporting, not redaction)."""
    kinds = []
    if _URL_CREDENTIALS.search(text):
        kinds.append("a URL with a password")
    for match in _SECRET_VALUES.finditer(text):
        kinds.append("an AWS access key id" if match.group(0)[:1] == "A" else "a webhook URL")
    return sorted(set(kinds))
