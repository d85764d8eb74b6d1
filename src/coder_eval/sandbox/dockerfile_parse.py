"""Reading a Dockerfile and its build context: the instructions (by the `dockerfile` package, BuildKit's
own parser, here-documents included) and the `.dockerignore` rules that leave files out of the context."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction as the parser read it."""

    cmd: str
    line: int
    original: str
    flags: tuple[str, ...] = ()
    value: tuple[str, ...] = ()
    json: bool = False
    heredocs: tuple[tuple[str, str], ...] = ()
    """(name, content) of each here-document."""

    @property
    def first(self) -> str:
        return self.original.split("\n")[0]


def parse(text: str) -> list[Instruction]:
    """The Dockerfile's instructions; ValueError with the parser's message when it does not parse."""
    import dockerfile

    try:
        commands = dockerfile.parse_string(text)
    except dockerfile.GoParseError as exc:
        raise ValueError(str(exc)) from None
    return [
        Instruction(
            cmd=str(c.cmd).upper(),
            line=int(c.start_line),
            original=str(c.original),
            flags=tuple(str(f) for f in c.flags),
            value=tuple(str(v) for v in c.value),
            json=bool(c.json),
            heredocs=tuple((str(h.name), str(h.content)) for h in getattr(c, "heredocs", ())),
        )
        for c in commands
    ]


def dockerignore(context: Path) -> list[str]:
    try:
        text = (context / ".dockerignore").read_text(encoding="utf-8")
    except OSError:
        return []
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def ignored(rel: str, patterns: list[str]) -> bool:
    """Whether `.dockerignore` leaves `rel` out of the context (last matching pattern wins; `!` re-includes)."""
    ignored = False
    for raw in patterns:
        negate = raw.startswith("!")
        pattern = posixpath.normpath(raw.lstrip("!").strip("/"))
        regex = fnmatch.translate(pattern).replace(".*", "[^/]*").replace("[^/]*[^/]*", ".*")
        parts = rel.split("/")
        if any(re.match(regex, "/".join(parts[:i])) for i in range(1, len(parts) + 1)):
            ignored = not negate
    return ignored
