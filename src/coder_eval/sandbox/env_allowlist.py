"""The environment anything in a sandbox starts from: built from an allowlist, never by removing names.

Commands and agents get the harness's PATH, locale and terminal settings, the sandbox's own HOME
and TMPDIR, and only the further variables something trusted names: the task (`env_passthrough`),
or the agent kind (its gateway variables, added by the engine). Everything else in the harness's
environment (API keys, cloud credentials, tokens of any name) stays out, whatever it is called.

The package-index and proxy settings that do pass may carry a credential in their value
(`PIP_INDEX_URL=https://user:password@…`, `HTTPS_PROXY=http://user:pass@proxy:3128`, a `?token=`).
Those credentials are withheld: the unit gets the URL without them (an anonymous index or proxy at
the same address still works), and a setting whose very name is a credential
(`npm_config__authToken`, `UV_INDEX_<NAME>_PASSWORD`) is left out. `withheld_credentials` says
what was withheld, naming variables, never values; `plan`, the start of `run` and each unit's
task.log show it. The removed pieces are returned to the caller (`WithheldCredential.removed`)
so that a holder outside the unit, such as an egress proxy, can take them over; they are never
logged.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from coder_eval.common.secrets import is_secret_name
from coder_eval.common.url_credentials import strip_url_credentials

ALWAYS = ("PATH", "LANG", "LANGUAGE", "TERM", "TZ", "COLORTERM", "NO_COLOR")
"""Harness variables every sandbox gets (plus every LC_* locale variable)."""

NETWORK_CONFIG = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "GIT_SSL_CAINFO",
    "PIP_CERT",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "UV_INDEX_URL",
    "UV_EXTRA_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_FIND_LINKS",
    "UV_PYTHON_INSTALL_DIR",
    "npm_config_registry",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
)
"""The machine's certificate, package-index and proxy settings: installs inside need them (without credentials)."""

NO_PROXY_NAMES = frozenset({"NO_PROXY", "no_proxy"})
"""Host lists, never URLs with credentials: passed unchanged."""
_SETTING_PREFIXES = ("npm_config_", "NPM_CONFIG_", "UV_", "PIP_", "PIPX_", "POETRY_", "YARN_", "PNPM_", "CONDA_")
_URL_SETTING = re.compile(r"PROXY|INDEX|REGISTRY|MIRROR|FIND_LINKS", re.IGNORECASE)


def is_network_setting(name: str) -> bool:
    """A package-manager, index, registry or proxy setting: its value may carry a credential."""
    if name in NO_PROXY_NAMES:
        return False
    return name in NETWORK_CONFIG or name.startswith(_SETTING_PREFIXES) or bool(_URL_SETTING.search(name))


@lru_cache(maxsize=1024)
def _policy(name: str) -> str:
    """What `withhold_credentials` does with a variable: `keep`, `drop` (its name is a credential),
    `strip` or `strip-bare` (a proxy setting, which may also be `user:pass@host:port`). Cached: the
    same few names come up for every unit."""
    if not is_network_setting(name):
        return "keep"
    if is_secret_name(name):
        return "drop"
    return "strip-bare" if "proxy" in name.lower() else "strip"


@dataclass(frozen=True)
class WithheldCredential:
    """A variable whose credential a unit does not get; `removed` holds what was taken out."""

    variable: str
    kinds: tuple[str, ...]
    dropped: bool = False
    """True when the whole variable is withheld (its name says it is a credential)."""
    removed: tuple[str, ...] = field(default=(), repr=False)
    """The removed pieces (or the whole value), for a holder outside the unit; never log them."""

    def message(self) -> str:
        """One line naming the variable (never its value) and what the unit gets instead."""
        if self.dropped:
            return f"{self.variable} is a credential setting; units do not get it"
        return f"{self.variable} carries a credential ({', '.join(self.kinds)}); units get it without the credential"


FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def allowlisted_env(
    source: Mapping[str, str] | None = None, *, passthrough: Iterable[str] = (), home: str | None = None
) -> dict[str, str]:
    """The allowlisted part of `source` (default: the harness's environment).

    `passthrough` names further variables to copy when set; `home` becomes HOME, and its `tmp`
    subdirectory TMPDIR. Credentials in network settings are withheld (`withhold_credentials`).
    """
    env, _ = withhold_credentials(_selected(source, passthrough))
    env.setdefault("PATH", FALLBACK_PATH)
    if home is not None:
        env["HOME"] = home
        env["TMPDIR"] = os.path.join(home, "tmp")
    return env


def withheld_credentials(
    source: Mapping[str, str] | None = None, *, passthrough: Iterable[str] = ()
) -> list[WithheldCredential]:
    """What `allowlisted_env` withholds from a unit given the same `source` and `passthrough`."""
    return withhold_credentials(_selected(source, passthrough, locale=False))[1]


def withhold_credentials(env: Mapping[str, str]) -> tuple[dict[str, str], list[WithheldCredential]]:
    """`env` without the credentials its network settings carry, and what was withheld."""
    clean = dict(env)
    withheld: list[WithheldCredential] = []
    for name, value in env.items():
        policy = _policy(name)
        if policy == "keep":
            continue
        if policy == "drop":
            del clean[name]
            withheld.append(WithheldCredential(name, ("the whole value",), dropped=True, removed=(value,)))
            continue
        stripped = strip_url_credentials(value, bare_authority=policy == "strip-bare")
        if stripped.changed:
            clean[name] = stripped.value
            withheld.append(WithheldCredential(name, stripped.kinds, removed=stripped.removed))
    return clean, withheld


_warned: set[str] = set()


def warn_withheld_credentials(passthrough: Iterable[str] = ()) -> list[str]:
    """Print, once per process and variable, a warning on stderr for each withheld credential."""
    messages = [w.message() for w in withheld_credentials(passthrough=passthrough)]
    for message in messages:
        if message not in _warned:
            _warned.add(message)
            print(f"warning: {message}", file=sys.stderr)
    return messages


def _selected(source: Mapping[str, str] | None, passthrough: Iterable[str], *, locale: bool = True) -> dict[str, str]:
    src = os.environ if source is None else source
    # Look the wanted names up rather than walking every variable: os.environ decodes each one it
    # yields, and this runs for every unit. Only the LC_* names need the walk (none is a setting
    # that could carry a credential, so `withheld_credentials` skips it).
    env = {k: src[k] for k in dict.fromkeys((*ALWAYS, *NETWORK_CONFIG, *passthrough)) if k in src}
    if locale:
        env.update({k: src[k] for k in src if k.startswith("LC_")})
    return env
