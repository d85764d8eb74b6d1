"""The environment anything in a sandbox starts from: built from an allowlist, never by removing names.

Commands and agents get the harness's PATH (without the harness's own virtual environment, whose
`python` and `pip` are not a unit's to use), locale and terminal settings, the sandbox's own HOME
and TMPDIR, and only the further variables something trusted names: the task (`env_passthrough`),
or the agent kind (its gateway variables, added by the engine). Everything else in the harness's
environment (API keys, cloud credentials, tokens of any name) stays out, whatever it is called.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from functools import lru_cache

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
"""The machine's certificate and package-index settings: installs inside need them; none is a credential."""

FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def allowlisted_env(
    source: Mapping[str, str] | None = None, *, passthrough: Iterable[str] = (), home: str | None = None
) -> dict[str, str]:
    """The allowlisted part of `source` (default: the harness's environment).

    `passthrough` names further variables to copy when set; `home` becomes HOME, and its `tmp`
    subdirectory TMPDIR.
    """
    src = os.environ if source is None else source
    # Look the wanted names up rather than walking every variable: os.environ decodes each one it
    # yields, and this runs for every unit.
    env = {k: src[k] for k in dict.fromkeys((*ALWAYS, *NETWORK_CONFIG, *passthrough)) if k in src}
    env.update({k: src[k] for k in src if k.startswith("LC_")})
    env["PATH"] = unit_path(env.get("PATH") or FALLBACK_PATH)
    if home is not None:
        env["HOME"] = home
        env["TMPDIR"] = os.path.join(home, "tmp")
    return env


@lru_cache(maxsize=8)
def unit_path(path: str) -> str:
    """`path` without the entries that lie in the harness's virtual environment (none when it runs in none)."""
    if sys.prefix == sys.base_prefix:
        return path
    venv = os.path.realpath(sys.prefix)
    kept = [e for e in path.split(os.pathsep) if e and not _inside(os.path.realpath(e), venv)]
    return os.pathsep.join(kept) or FALLBACK_PATH


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)
