"""The network boundary under bubblewrap and docker, with the harness as root and as an ordinary user.

One run per driver and operator, five units of the `none` agent whose grading commands try the
network (the commands are the unit's: they run with its environment, inside it):

- `allowed`: a loopback "index" the test serves is in `allow_hosts`; it answers through the egress
  proxy, and does not when the unit tries it without the proxy;
- `denied`: a second loopback server, not listed, is refused with the reason the record carries;
- `secret`: the operator's pip and uv index URLs carry a password; uv (and pip, under bubblewrap)
  install from that index, which sees the credential, while the unit's environment, its files
  and every record of the run never contain it;
- `none` and `host`: nothing goes out at all, or the host's own loopback is reached directly.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_index import FakeIndex, serve_index
from operators import DRIVERS, OPERATORS, Operator, operator, require_driver

pytestmark = pytest.mark.slow

FETCH = (
    'python3 -c "import sys, urllib.request as u; '
    "o = u.build_opener() if sys.argv[2] == 'proxy' else u.build_opener(u.ProxyHandler({})); "
    'print(o.open(sys.argv[1], timeout=20).read().decode())"'
)


def _fetch(url: str, how: str = "proxy") -> str:
    return f"{FETCH} {url} {how}"


@dataclass
class Outcome:
    records: dict[str, dict[str, Any]]
    run_dir: Path
    index: FakeIndex
    private: FakeIndex
    password: str
    output: str

    def result(self, task: str, n: int) -> dict[str, Any]:
        return dict(self.records[task]["success_criteria_results"][n])

    def network(self, task: str) -> dict[str, Any]:
        return dict(self.records[task]["network"])


def _criterion(command: str, description: str) -> dict[str, Any]:
    return {"type": "run_command", "command": command, "description": description, "timeout": 120}


def _tasks(driver: str, index: FakeIndex, private: FakeIndex) -> dict[str, dict[str, Any]]:
    hello = f"http://{index.address}/hello"
    install = (
        'uv pip install --no-cache --python /usr/bin/python3 --target site ce-fetched --index-url "$UV_INDEX_URL" '
        "&& PYTHONPATH=site python3 -c 'import ce_fetched; print(ce_fetched.VALUE)'"
    )
    pip = "python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check -d dl ce-fetched && ls dl"
    secret_checks = [_criterion(install, "uv installs from the index")]
    if driver == "bubblewrap":  # the base docker image has no pip
        secret_checks.append(_criterion(pip, "pip downloads from the index"))
    secret_checks.append(_criterion("env > seen-env.txt; cat /proc/self/environ > seen-proc.txt; echo kept", "env"))
    units: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
        "allowed": (
            {"allow_hosts": [index.address]},
            [
                _criterion(_fetch(hello), "through the proxy"),
                _criterion(_fetch(hello, "direct"), "without the proxy"),
            ],
        ),
        "denied": (
            {"allow_hosts": [index.address]},
            [_criterion(_fetch(f"http://{private.address}/hello"), "private")],
        ),
        "secret": ({}, secret_checks),
        "none": ({"network": "none"}, [_criterion(_fetch(hello), "anything")]),
        "host": ({"network": "host"}, [_criterion(_fetch(hello, "direct"), "the host's loopback")]),
    }
    return {
        name: {
            "task_id": name,
            "description": f"egress: {name}",
            "initial_prompt": "unused",
            "agent": {"type": "none"},
            "sandbox": {"driver": driver, **sandbox},
            "success_criteria": criteria,
        }
        for name, (sandbox, criteria) in units.items()
    }


def _run(op: Operator, driver: str) -> Iterator[Outcome]:
    password = "pw-" + secrets.token_hex(8)
    with serve_index(user="alice", password=password) as index, serve_index("127.0.0.3") as private:
        suite = op.work / "suite"
        suite.mkdir()
        files = []
        for name, doc in _tasks(driver, index, private).items():
            path = suite / f"{name}.yaml"
            path.write_text(yaml.safe_dump(doc, sort_keys=False))
            files.append(str(path))
        op.own(suite)
        run_dir = op.work / "run"
        secret_url = index.url(credentials=True)
        env = {"PIP_INDEX_URL": secret_url, "UV_INDEX_URL": secret_url}
        proc = op.cli(
            "run", *files, "-j", "2", "--run-dir", str(run_dir), "--preservation-mode", "DIRECT_WRITE", env=env
        )
        records = {}
        for path in run_dir.rglob("task.json"):
            record = json.loads(path.read_text())
            records[record["task_id"]] = record
        yield Outcome(records, run_dir, index, private, password, proc.stdout + proc.stderr)


@pytest.fixture(scope="module", params=[(d, w) for d in DRIVERS for w in OPERATORS], ids=lambda p: f"{p[0]}-{p[1]}")
def outcome(request: pytest.FixtureRequest) -> Iterator[Outcome]:
    driver, who = request.param
    require_driver(driver)
    with operator(who) as op:
        yield from _run(op, driver)


def test_every_unit_ran(outcome: Outcome) -> None:
    assert set(outcome.records) == {"allowed", "denied", "secret", "none", "host"}, outcome.output


def test_an_allowed_index_answers_only_through_the_proxy(outcome: Outcome) -> None:
    through, direct = outcome.result("allowed", 0), outcome.result("allowed", 1)
    assert through["score"] == 1.0, through
    assert direct["score"] == 0.0, direct  # inside, that loopback address is the unit's own
    network = outcome.network("allowed")
    assert network["mode"] == "allowlist" and network["enforced"] is True
    assert outcome.index.address in network["allow_hosts"]
    hits = [e for e in network["events"] if e["host"] == outcome.index.host and e["port"] == outcome.index.port]
    assert hits and all(e["allowed"] for e in hits) and hits[0]["phase"] == "grading", network
    assert hits[0]["bytes_in"] > 0 and hits[0]["reason"] == f"allow_hosts {outcome.index.address}"
    assert outcome.records["allowed"]["final_status"] == "FAILURE"  # the direct attempt's criterion fails


def test_a_host_outside_the_policy_is_refused_and_recorded(outcome: Outcome) -> None:
    record = outcome.records["denied"]
    assert record["final_status"] == "FAILURE"
    assert outcome.private.seen == []  # nothing reached it
    denied = [e for e in record["network"]["events"] if not e["allowed"]]
    assert [(e["host"], e["port"]) for e in denied] == [(outcome.private.host, outcome.private.port)]
    expected = f"network: denied {outcome.private.address} (not in allow_hosts)"
    assert record["error_message"] == expected
    assert "403" in outcome.result("denied", 0)["details"]
    log = (outcome.run_dir / "default" / "denied" / "00" / "task.log").read_text()
    assert f"network: denied {outcome.private.address} (not in allow_hosts) during grading" in log


def test_index_credentials_stay_in_the_proxy(outcome: Outcome) -> None:
    record = outcome.records["secret"]
    assert record["final_status"] == "SUCCESS", json.dumps(record["success_criteria_results"], indent=1)
    auths = {auth for path, auth in outcome.index.seen if path.startswith(("/simple/", "/files/"))}
    assert auths == {outcome.index.expected_authorization}, outcome.index.seen
    workspace = Path(record["sandbox_path"])
    seen_env = (workspace / "seen-env.txt").read_text()
    assert "127.0.0.1:41415/index/" in seen_env  # the unit's index is its mirror address
    leaks = [str(p) for p in outcome.run_dir.rglob("*") if p.is_file() and outcome.password.encode() in p.read_bytes()]
    assert leaks == [], leaks  # not in its environment, its files, task.json, task.log or run.json
    events = record["network"]["events"]
    assert events and all(e["allowed"] and "credentials added by the proxy" in e["reason"] for e in events)


def test_none_reaches_nothing_and_host_reaches_the_host(outcome: Outcome) -> None:
    assert outcome.result("none", 0)["score"] == 0.0
    none = outcome.network("none")
    assert none["mode"] == "none" and none["events"] == []
    assert outcome.result("host", 0)["score"] == 1.0, outcome.result("host", 0)
    assert outcome.network("host")["mode"] == "host"
