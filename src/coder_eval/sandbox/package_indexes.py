"""The package indexes the operator's own tools are configured with, read once from the harness's side.

This is the default allowlist of an egress policy: what pip, uv and npm on this machine would
use, never a list of host names kept in the project. Sources, in the order each tool reads them:

- pip: its configuration files (`/etc/xdg/pip/pip.conf`, `/etc/pip.conf`, `~/.pip/pip.conf`,
  `~/.config/pip/pip.conf`, `$PIP_CONFIG_FILE`) and `PIP_INDEX_URL`, `PIP_EXTRA_INDEX_URL`,
  `PIP_FIND_LINKS`; with no index configured, the index pip itself defaults to (read from the
  installed pip, with the host its files are served from);
- uv: `uv.toml` (`/etc/uv/uv.toml`, `~/.config/uv/uv.toml`, `$UV_CONFIG_FILE`) and `UV_INDEX_URL`,
  `UV_DEFAULT_INDEX`, `UV_INDEX`, `UV_EXTRA_INDEX_URL`, `UV_FIND_LINKS`; with no default index, the
  one uv's own help names;
- npm: `npm config list --json` (the registry and every `@scope:registry`), which already folds in
  `.npmrc` files, `npm_config_*` variables and npm's own default.

Credentials in an index URL (`https://user:secret@host/simple`) are kept here, in the harness:
the egress proxy adds them upstream, and the unit is only ever given the URL without them.
Only http(s) locations count; `file:` URLs and paths are local and need no network.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from coder_eval.common.host_tools import find_host_tool

TOOL_TIMEOUT = 20.0
PIP_KEYS = ("index-url", "extra-index-url", "find-links")


@dataclass(frozen=True)
class IndexUrl:
    """One configured location: where it came from and its URL (credentials, if any, kept apart)."""

    tool: str
    setting: str
    """What the tool calls it: PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, UV_DEFAULT_INDEX, npm registry, ..."""
    public_url: str
    """The URL without userinfo: what a unit may see."""
    source: str
    """Where it was read (a file, a variable, or the tool's own default)."""
    username: str = field(default="", repr=False)
    password: str = field(default="", repr=False)
    extra_hosts: tuple[str, ...] = ()
    """Further `host:port` the index serves its files from (PyPI's file host)."""

    @property
    def has_credentials(self) -> bool:
        return bool(self.username or self.password)

    @property
    def scheme(self) -> str:
        return urlsplit(self.public_url).scheme

    @property
    def host(self) -> str:
        return (urlsplit(self.public_url).hostname or "").lower()

    @property
    def port(self) -> int:
        parts = urlsplit(self.public_url)
        return parts.port or (443 if parts.scheme == "https" else 80)

    @property
    def origin(self) -> str:
        parts = urlsplit(self.public_url)
        return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def split_userinfo(url: str) -> tuple[str, str, str]:
    """(url without userinfo, username, password), both percent-decoded."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, "", ""
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=hostport)), unquote(user), unquote(password)


def _entry(tool: str, setting: str, url: str, source: str, extra: tuple[str, ...] = ()) -> IndexUrl | None:
    url = url.strip()
    if not re.match(r"^https?://", url, re.IGNORECASE):
        return None  # a path or file: URL is local
    public, user, password = split_userinfo(url)
    if not urlsplit(public).hostname:
        return None
    return IndexUrl(tool, setting, public, source, user, password, extra)


def _words(value: str) -> list[str]:
    return [w for w in re.split(r"[\s,]+", value) if w]


# -- pip --------------------------------------------------------------------------------------------


def _pip_files(env: dict[str, str], home: Path) -> list[Path]:
    dirs = env.get("XDG_CONFIG_DIRS", "/etc/xdg").split(":")
    files = [Path(d) / "pip" / "pip.conf" for d in dirs if d] + [Path("/etc/pip.conf")]
    files += [home / ".pip" / "pip.conf", Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "pip" / "pip.conf"]
    if env.get("PIP_CONFIG_FILE"):
        files.append(Path(env["PIP_CONFIG_FILE"]))
    return files


def _pip_settings(env: dict[str, str], home: Path) -> dict[str, tuple[str, str]]:
    """key -> (value, where) with pip's precedence: later files win, then the environment."""
    found: dict[str, tuple[str, str]] = {}
    for path in _pip_files(env, home):
        parser = configparser.RawConfigParser()
        try:
            if not parser.read(path):
                continue
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        for section in ("global", "download", "install"):
            for key in PIP_KEYS:
                if parser.has_option(section, key):
                    found[key] = (parser.get(section, key), str(path))
    for key in PIP_KEYS:
        var = "PIP_" + key.upper().replace("-", "_")
        if env.get(var):
            found[key] = (env[var], var)
    return found


def _pip_default() -> IndexUrl | None:
    """The index pip uses when nothing is configured, as the installed pip defines it."""
    try:
        from pip._internal.models.index import PyPI
    except ImportError:
        return None
    files = getattr(PyPI, "file_storage_domain", "")
    simple = str(getattr(PyPI, "simple_url", "") or PyPI.url)
    return _entry("pip", "PIP_INDEX_URL", simple, "pip's default", (f"{files}:443",) if files else ())


def pip_indexes(env: dict[str, str], home: Path) -> list[IndexUrl]:
    settings = _pip_settings(env, home)
    out: list[IndexUrl] = []
    names = {"index-url": "PIP_INDEX_URL", "extra-index-url": "PIP_EXTRA_INDEX_URL", "find-links": "PIP_FIND_LINKS"}
    for key, (value, where) in settings.items():
        for word in _words(value):
            entry = _entry("pip", names[key], word, where)
            if entry is not None:
                out.append(entry)
    if "index-url" not in settings:
        default = _pip_default()
        if default is not None:
            out.append(default)
    return out


# -- uv ---------------------------------------------------------------------------------------------


def _uv_files(env: dict[str, str], home: Path) -> list[Path]:
    dirs = env.get("XDG_CONFIG_DIRS", "/etc/xdg").split(":")
    files = [Path(d) / "uv" / "uv.toml" for d in dirs if d] + [Path("/etc/uv/uv.toml")]
    files.append(Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "uv" / "uv.toml")
    if env.get("UV_CONFIG_FILE"):
        files.append(Path(env["UV_CONFIG_FILE"]))
    return files


def _uv_file_entries(path: Path) -> tuple[list[IndexUrl], bool]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return [], False
    out: list[IndexUrl] = []
    has_default = bool(data.get("index-url"))
    keys = (("index-url", "UV_DEFAULT_INDEX"), ("extra-index-url", "UV_INDEX"), ("find-links", "UV_FIND_LINKS"))
    for key, setting in keys:
        values = data.get(key) or []
        for value in [values] if isinstance(values, str) else values:
            entry = _entry("uv", setting, str(value), str(path)) if isinstance(value, str) else None
            out += [entry] if entry else []
    for index in data.get("index") or []:
        if isinstance(index, dict) and isinstance(index.get("url"), str):
            default = bool(index.get("default"))
            has_default = has_default or default
            entry = _entry("uv", "UV_DEFAULT_INDEX" if default else "UV_INDEX", index["url"], str(path))
            out += [entry] if entry else []
    return out, has_default


def _uv_default() -> IndexUrl | None:
    """The default index uv's own help names (`--default-index ... (by default: <URL>)`)."""
    from coder_eval.sandbox.environments import find_uv
    from coder_eval.sandbox.templates import SetupError

    try:
        uv = find_uv()
        done = subprocess.run(
            [uv, "pip", "install", "--help"], capture_output=True, text=True, timeout=TOOL_TIMEOUT, env=_tool_env()
        )
    except (SetupError, OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"--default-index\b.*?by default: <([^>\s]+)>", done.stdout, re.DOTALL)
    if found is None:
        return None
    entry = _entry("uv", "UV_DEFAULT_INDEX", found.group(1), "uv's default")
    pip = _pip_default()
    if entry is not None and pip is not None and pip.host == entry.host:  # the same index: the same file host
        entry = IndexUrl(entry.tool, entry.setting, entry.public_url, entry.source, extra_hosts=pip.extra_hosts)
    return entry


def uv_indexes(env: dict[str, str], home: Path) -> list[IndexUrl]:
    out: list[IndexUrl] = []
    has_default = False
    for path in _uv_files(env, home):
        entries, default = _uv_file_entries(path)
        out += entries
        has_default = has_default or default
    for var in ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_FIND_LINKS"):
        for word in _words(env.get(var, "")):
            url = word.split("=", 1)[1] if "=" in word.split("://", 1)[0] else word  # UV_INDEX: name=url
            entry = _entry("uv", var, url, var)
            if entry is not None:
                out.append(entry)
                has_default = has_default or var in ("UV_INDEX_URL", "UV_DEFAULT_INDEX")
    if not has_default:
        fallback = _uv_default()
        if fallback is not None:
            out.append(fallback)
    return out


# -- npm --------------------------------------------------------------------------------------------


def npm_indexes() -> list[IndexUrl]:
    """The registry and scoped registries npm on this machine is configured with (and its default)."""
    npm = find_host_tool("npm")
    if npm is None:
        return []
    try:
        # npm creates ~/.npm (and a debug log in it) for every command, this one too: its cache and
        # logs go to a throwaway directory, so reading the configuration writes nothing of the operator's
        with tempfile.TemporaryDirectory(prefix="coder-eval-npm-") as scratch:
            argv = [npm, "config", "list", "--json", "--logs-max=0", f"--cache={scratch}", f"--logs-dir={scratch}"]
            done = subprocess.run(argv, capture_output=True, text=True, timeout=TOOL_TIMEOUT, env=_tool_env())
        data = json.loads(done.stdout) if done.returncode == 0 else {}
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    out: list[IndexUrl] = []
    for key, value in sorted(data.items()) if isinstance(data, dict) else []:
        if (key == "registry" or key.endswith(":registry")) and isinstance(value, str):
            setting = "npm_config_registry" if key == "registry" else f"npm_config_{key}"
            entry = _entry("npm", setting, value, "npm config")
            out += [entry] if entry else []
    return out


def _tool_env() -> dict[str, str]:
    """What a tool asked about its configuration runs with: the harness's own environment."""
    return dict(os.environ)


@lru_cache(maxsize=1)
def operator_indexes() -> tuple[IndexUrl, ...]:
    """Every index location the operator's pip, uv and npm use (read once per process)."""
    env, home = dict(os.environ), Path.home()
    found = [*pip_indexes(env, home), *uv_indexes(env, home), *npm_indexes()]
    unique: dict[tuple[str, str, str], IndexUrl] = {}
    for entry in found:
        unique.setdefault((entry.tool, entry.setting, entry.public_url), entry)
    return tuple(unique.values())
