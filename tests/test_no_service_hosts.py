"""No host name of a service is written in the project's code: one data file holds the providers' public
endpoints (each the default its own SDKs document), and the package indexes a unit may reach come from
the operator's tool configuration at run time.

What is still allowed in the sources: loopback addresses, and identifiers that are URLs by convention
but are never connected to (JSON Schema and SARIF schema ids, the SVG namespace, a credential pattern).
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).parents[1] / "src" / "coder_eval"
DATA_FILE = SRC / "models" / "builtin_providers.yaml"
IDENTIFIERS = {
    "json-schema.org",  # $schema of the exported task schema
    "json.schemastore.org",  # SARIF's $schema
    "coder-eval.dev",  # the task schema's $id
    "opencode.ai",  # $schema of OpenCode's configuration, as OpenCode writes it
    "www.w3.org",  # the SVG namespace
    "hooks",  # part of a credential pattern (common/secrets.py)
}
URL = re.compile(r"https?://([A-Za-z0-9.{}_-]+)")
RESERVED = (".example", ".test", ".invalid")
"""Names reserved for documentation and tests (RFC 2606): never a service anyone connects to."""


def _hosts(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    return {m.group(1) for m in URL.finditer(text)}


def test_service_hosts_are_only_in_the_one_data_file() -> None:
    found: dict[str, set[str]] = {}
    for path in SRC.rglob("*"):
        if (
            not path.is_file()
            or path.suffix not in (".py", ".yaml", ".js", ".html", ".css", ".json")
            or path == DATA_FILE
        ):
            continue
        hosts = {
            h
            for h in _hosts(path)
            if "." in h
            and h not in IDENTIFIERS
            and not h.startswith(("127.", "{"))
            and h != "localhost"
            and not h.endswith(RESERVED)
        }
        if hosts:
            found[str(path.relative_to(SRC))] = hosts
    assert found == {}, f"host names written in the code (put a provider's endpoint in {DATA_FILE.name}): {found}"


def test_the_data_file_holds_only_provider_endpoints() -> None:
    from coder_eval.models.providers import builtin_profiles

    urls = {p.base_url for p in builtin_profiles().providers.values() if p.base_url}
    assert {m.group(0) for m in URL.finditer(DATA_FILE.read_text())} == {re.match(URL, u).group(0) for u in urls}
