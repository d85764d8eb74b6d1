"""Which shell commands of a Dockerfile's RUN steps need the network (a rehearsal runs them offline).

The rules are by command and subcommand: package managers installing or refreshing, language
installers, downloads and clones. An explicit offline flag (`--no-index`, `--offline`) exempts a
command. A rule that misses a command is not silent: the step then fails offline and its output is
shown with the step.
"""

from __future__ import annotations

import re

from coder_eval.sandbox.dockerfile_words import command_words

ANY = frozenset({"*"})
NETWORK_COMMANDS: dict[str, frozenset[str]] = {
    "apt-get": frozenset({"install", "update", "upgrade", "dist-upgrade", "build-dep", "source", "download"}),
    "apt": frozenset({"install", "update", "upgrade", "full-upgrade"}),
    "aptitude": frozenset({"install", "update", "upgrade"}),
    "apk": frozenset({"add", "update", "upgrade", "fetch"}),
    "yum": frozenset({"install", "update", "upgrade", "makecache", "groupinstall", "reinstall"}),
    "dnf": frozenset({"install", "update", "upgrade", "makecache", "groupinstall", "reinstall"}),
    "microdnf": frozenset({"install", "update", "upgrade", "makecache"}),
    "tdnf": frozenset({"install", "update", "upgrade", "makecache"}),
    "zypper": frozenset({"install", "in", "refresh", "ref", "update", "up"}),
    "pip": frozenset({"install", "download", "wheel"}),
    "pipx": frozenset({"install", "run"}),
    "poetry": frozenset({"install", "add", "update", "lock"}),
    "pdm": frozenset({"install", "add", "update", "sync", "lock"}),
    "conda": frozenset({"install", "create", "update"}),
    "mamba": frozenset({"install", "create", "update"}),
    "micromamba": frozenset({"install", "create", "update"}),
    "npm": frozenset({"install", "i", "ci", "add", "update", "exec"}),
    "pnpm": frozenset({"install", "i", "add", "update", "dlx"}),
    "bun": frozenset({"install", "i", "add", "update", "x"}),
    "yarn": frozenset({"install", "add", "upgrade", "dlx"}),
    "npx": ANY,
    "curl": ANY,
    "wget": ANY,
    "git": frozenset({"clone", "fetch", "pull", "submodule", "ls-remote"}),
    "go": frozenset({"get", "install", "mod"}),
    "cargo": frozenset({"install", "fetch", "add", "update"}),
    "gem": frozenset({"install", "update"}),
    "bundle": frozenset({"install", "update"}),
    "composer": frozenset({"install", "require", "update"}),
    "rustup": ANY,
    "add-apt-repository": ANY,
    "nvm": frozenset({"install"}),
}
OFFLINE_FLAGS = frozenset({"--no-index", "--offline", "--no-network"})
_VERSIONED = re.compile(r"^(pip|python)(\d+(\.\d+)*)?$")


def _program(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    match = _VERSIONED.match(name)
    return match.group(1) if match else name


def needs_network(fragment: str) -> str | None:
    """The command (e.g. `apt-get install`) when this simple shell command needs the network, else None."""
    words = command_words(fragment)
    if not words:
        return None
    program = _program(words[0])
    rest = words[1:]
    if program == "python" and rest[:2] == ["-m", "pip"]:
        program, rest = "pip", rest[2:]
    if any(flag in OFFLINE_FLAGS for flag in rest):
        return None
    if program == "uv":
        return _uv(rest)
    subcommands = NETWORK_COMMANDS.get(program)
    if subcommands is None:
        return _pacman(program, rest)
    if subcommands is ANY:
        return program
    verb = next((w for w in rest if not w.startswith("-")), "install" if program == "yarn" else "")
    return f"{program} {verb}" if verb in subcommands else None


def _uv(rest: list[str]) -> str | None:
    verbs = [w for w in rest if not w.startswith("-")][:2]
    if verbs[:1] in (["sync"], ["add"], ["lock"]) or verbs in (["pip", "install"], ["pip", "sync"]):
        return " ".join(["uv", *verbs])
    if verbs in (["tool", "install"], ["python", "install"]):
        return " ".join(["uv", *verbs])
    return None


def _pacman(program: str, rest: list[str]) -> str | None:
    if program == "pacman" and any(w.startswith("-S") for w in rest):
        return "pacman -S"
    return None
