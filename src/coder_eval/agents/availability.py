"""What `coder-eval agents` reports: each kind, whether it can run here, its binary and version."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from coder_eval.agents.installs import binary_version
from coder_eval.agents.kind import AgentKind, NpmPackage
from coder_eval.agents.registry import AGENTS


@dataclass(frozen=True)
class KindStatus:
    kind: str
    status: str
    """`ready`, `missing binary`, `no implementation` or `built in` (needs no binary)."""
    binary: str | None
    version: str | None
    location: str | None
    install: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def status_of(kind: AgentKind) -> KindStatus:
    binary = kind.binary
    if binary is None:
        status = "ready (no binary)" if kind.has_implementation else "no implementation"
        return KindStatus(kind.name, status, None, None, None, None)
    location = binary.locate()
    version = binary_version(location) if location is not None else None
    if not kind.has_implementation:
        status = "no implementation"
    else:
        status = "ready" if location is not None else "missing binary"
    return KindStatus(kind.name, status, binary.name, version, location, binary.install or None)


def survey() -> list[KindStatus]:
    """Every registered kind, sorted by name."""
    return [status_of(kind) for _, kind in sorted(AGENTS.entries())]


def npm_package_of(name: str) -> NpmPackage:
    """The pinned npm CLI of kind `name`, or a LookupError saying which kinds have one."""
    kind = AGENTS.find(name)
    installable = sorted(n for n, k in AGENTS.entries() if k.binary is not None and k.binary.npm is not None)
    if kind is None:
        raise LookupError(f"unknown agent kind {name!r}; kinds with an npm CLI: {', '.join(installable) or 'none'}")
    if kind.binary is None or kind.binary.npm is None:
        how = kind.binary.install if kind.binary is not None and kind.binary.install else "it needs no install"
        raise LookupError(f"agent kind {name!r} has no npm CLI to install ({how})")
    return kind.binary.npm
