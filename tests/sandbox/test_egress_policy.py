"""Which network a unit gets, what its allowlist holds, and what its environment says about it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder_eval.models.network import HostRule, NetworkRecord, denied_reason, parse_host_rule
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.egress_env import index_env, proxy_env, unit_network_env
from coder_eval.sandbox.egress_mirror import mirror_names, needs_mirror, unit_url
from coder_eval.sandbox.egress_policy import EgressPolicy, describe, resolve_mode
from coder_eval.sandbox.package_indexes import IndexUrl, pip_indexes, split_userinfo, uv_indexes


def _config(**fields: Any) -> SandboxConfig:
    return SandboxConfig.model_validate(fields)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("pypi.example", HostRule("pypi.example")),
        ("PyPI.Example.:8443", HostRule("pypi.example", 8443)),
        ("*.corp.example", HostRule("*.corp.example")),
        ("127.0.0.2:9000", HostRule("127.0.0.2", 9000)),
        ("[::1]:8080", HostRule("::1", 8080)),
        ("fe80::1", HostRule("fe80::1")),
    ],
)
def test_host_rules_parse(text: str, rule: HostRule) -> None:
    assert parse_host_rule(text) == rule


@pytest.mark.parametrize(
    "text", ["https://pypi.example/simple", "a b", "host:0", "host:99999", "*", "a.*.b", "u@h", ""]
)
def test_bad_host_rules_are_refused_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError, match=r"host|port|IPv6"):
        parse_host_rule(text)


def test_rules_match_host_port_and_suffix() -> None:
    assert HostRule("pypi.example").matches("PYPI.example.", 443)
    assert HostRule("pypi.example", 443).matches("pypi.example", 443)
    assert not HostRule("pypi.example", 443).matches("pypi.example", 80)
    wild = HostRule("*.corp.example")
    assert wild.matches("a.b.corp.example", 1) and not wild.matches("corp.example", 1)
    assert not wild.matches("evilcorp.example", 1)


def test_a_bad_allow_hosts_entry_fails_validation() -> None:
    with pytest.raises(ValueError, match=r"is not host\[:port\]"):
        _config(allow_hosts=["https://x.example/"])


def test_sandbox_network_and_docker_network_must_agree() -> None:
    _config(network="host", docker={"network": "bridge"})
    _config(network="allowlist", docker={"network": "none"})
    for network, docker in (("none", "bridge"), ("allowlist", "bridge"), ("host", "none")):
        with pytest.raises(ValueError, match=r"contradicts docker\.network"):
            _config(network=network, docker={"network": docker})


@pytest.mark.parametrize(
    ("fields", "driver", "held"),
    [
        ({}, "bubblewrap", ("allowlist", True)),
        ({}, "docker", ("allowlist", True)),
        ({"network": "none"}, "bubblewrap", ("none", True)),
        ({"network": "host"}, "docker", ("host", True)),
        ({"docker": {"network": "none"}}, "docker", ("none", True)),
        ({"docker": {"network": "bridge"}}, "docker", ("host", True)),
        ({}, "tempdir", ("host", False)),
        ({"network": "none"}, "tempdir", ("host", False)),
        ({}, "plugin-driver", ("allowlist", False)),
    ],
)
def test_the_mode_that_holds(fields: dict[str, Any], driver: str, held: tuple[str, bool]) -> None:
    found = resolve_mode(_config(**fields), driver)
    assert (found.mode, found.enforced) == held
    if driver == "tempdir" and fields:
        assert "cannot hold sandbox.network none" in found.note


def _index(url: str, tool: str = "pip", setting: str = "PIP_INDEX_URL", source: str = "PIP_INDEX_URL") -> IndexUrl:
    public, user, password = split_userinfo(url)
    return IndexUrl(tool, setting, public, source, user, password)


def test_the_allowlist_is_the_tasks_hosts_then_the_operators_indexes() -> None:
    index = _index("https://idx.example/simple")
    files = IndexUrl(
        "pip", "PIP_INDEX_URL", "https://pkgs.example/simple", "pip's default", extra_hosts=("files.example:443",)
    )
    policy = EgressPolicy.build(["api.example:8443"], (index, files))
    assert policy.allowed() == ["api.example:8443", "idx.example:443", "pkgs.example:443", "files.example:443"]
    assert policy.decide("api.example", 8443) == (True, "allow_hosts api.example:8443")
    assert policy.decide("idx.example", 443) == (True, "pip index (PIP_INDEX_URL)")
    assert policy.decide("files.example", 443) == (True, "pip index files (pip's default)")
    assert policy.decide("idx.example", 80) == (False, "not in allow_hosts")
    text = describe(_config(allow_hosts=["api.example:8443"]), "bubblewrap", (index,))
    assert text.startswith("network allowlist through the egress proxy: api.example:8443, idx.example:443")


def test_credentialed_and_loopback_indexes_go_through_the_mirror_without_their_secret() -> None:
    secret = _index("https://me:t%40ken@private.example/repo/simple/")
    local = _index("http://localhost:3141/root/pypi/+simple/", setting="PIP_EXTRA_INDEX_URL")
    public = _index("https://public.example/simple/", tool="uv", setting="UV_INDEX_URL", source="UV_INDEX_URL")
    assert secret.password == "t@ken" and "t%40ken" not in secret.public_url
    assert needs_mirror(secret) and needs_mirror(local) and not needs_mirror(public)
    names = mirror_names((secret, local, public))
    assert list(names) == ["pip-0", "pip-1"]
    assert unit_url(secret, names) == "http://127.0.0.1:41415/index/pip-0/repo/simple/"
    assert unit_url(public, names) == "https://public.example/simple/"
    env = index_env((secret, local, public))
    assert env == {
        "PIP_INDEX_URL": "http://127.0.0.1:41415/index/pip-0/repo/simple/",
        "PIP_EXTRA_INDEX_URL": "http://127.0.0.1:41415/index/pip-1/root/pypi/+simple/",
    }  # the public uv index is already in the unit's environment as it is
    full = unit_network_env(EgressPolicy.build([], (secret,)))
    assert "t@ken" not in repr(full) and full["HTTPS_PROXY"] == "http://127.0.0.1:41415"
    assert proxy_env()["NO_PROXY"] == "127.0.0.1,localhost,::1"


def test_indexes_read_from_the_operators_home_are_given_to_the_unit(tmp_path: Path) -> None:
    conf = tmp_path / ".config" / "pip"
    conf.mkdir(parents=True)
    (conf / "pip.conf").write_text(
        "[global]\nindex-url = https://u:p@home.example/simple\nextra-index-url =\n  https://more.example/simple\n"
        "  file:///opt/local/simple\n"
    )
    found = pip_indexes({"XDG_CONFIG_DIRS": str(tmp_path / "none")}, tmp_path)
    assert [(i.setting, i.public_url, i.username) for i in found] == [
        ("PIP_INDEX_URL", "https://home.example/simple", "u"),
        ("PIP_EXTRA_INDEX_URL", "https://more.example/simple", ""),
    ]
    env = index_env(tuple(found))
    assert env["PIP_INDEX_URL"] == "http://127.0.0.1:41415/index/pip-0/simple"
    assert env["PIP_EXTRA_INDEX_URL"] == "https://more.example/simple"  # unseen inside: the file is in HOME


def test_the_environment_wins_over_files_and_the_tools_default_fills_in(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_DIRS": str(tmp_path / "none"), "PIP_EXTRA_INDEX_URL": "https://a.example/s https://b.example/s"}
    found = pip_indexes(env, tmp_path)
    extras = [i.public_url for i in found if i.setting == "PIP_EXTRA_INDEX_URL"]
    assert extras == ["https://a.example/s", "https://b.example/s"]
    default = [i for i in found if i.source == "pip's default"]
    from pip._internal.models.index import PyPI

    assert len(default) == 1 and default[0].host in PyPI.url  # pip's own default, as pip defines it
    assert default[0].extra_hosts == (f"{PyPI.file_storage_domain}:443",)
    with_index = pip_indexes({**env, "PIP_INDEX_URL": "https://only.example/simple"}, tmp_path)
    assert not [i for i in with_index if i.source == "pip's default"]


def test_uv_reads_its_file_its_variables_and_names_its_own_default(tmp_path: Path) -> None:
    conf = tmp_path / ".config" / "uv"
    conf.mkdir(parents=True)
    (conf / "uv.toml").write_text('[[index]]\nname = "corp"\nurl = "https://corp.example/simple"\n')
    env = {"XDG_CONFIG_DIRS": str(tmp_path / "none"), "UV_INDEX": "extra=https://x.example/simple"}
    found = uv_indexes(env, tmp_path)
    urls = [(i.setting, i.public_url) for i in found]
    assert ("UV_INDEX", "https://corp.example/simple") in urls and ("UV_INDEX", "https://x.example/simple") in urls
    assert [i for i in found if i.source == "uv's default"], "uv's help names its default index"
    pinned = uv_indexes({**env, "UV_DEFAULT_INDEX": "https://d.example/simple"}, tmp_path)
    assert not [i for i in pinned if i.source == "uv's default"]


def test_the_reason_names_the_first_refusal() -> None:
    from datetime import UTC, datetime

    from coder_eval.models.network import NetworkEvent

    when = datetime.now(UTC)
    events = [
        NetworkEvent(host="ok.example", port=443, allowed=True, started_at=when),
        NetworkEvent(host="example.org", port=443, allowed=False, reason="not in allow_hosts", started_at=when),
        NetworkEvent(host="example.org", port=443, allowed=False, reason="not in allow_hosts", started_at=when),
        NetworkEvent(host="other.example", port=80, allowed=False, reason="not in allow_hosts", started_at=when),
    ]
    record = NetworkRecord(mode="allowlist", events=events)
    assert denied_reason(record) == "network: denied example.org:443 (not in allow_hosts); 1 more host(s) denied"
    assert denied_reason(NetworkRecord(mode="allowlist", events=events[:1])) is None
