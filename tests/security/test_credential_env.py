"""Credentials in index and proxy settings never reach a unit: its commands, criteria, docker exec, the agent.

The harness runs with package-index and proxy settings that carry credentials in every form the
stripper knows (user:password@, token@, percent-encoded, several URLs in one variable, a token in
a query string, a scheme-less proxy). A unit records the environment each of its processes sees
(pre_run, a criterion, and, in the agent test, the real Claude Code CLI's Bash and every
/proc/*/environ it can read); the test then scans the whole run directory and the CLI's output
for the secrets, checks that the unit got the URLs without them, that `plan`, the start of `run`
and task.log named the variables, and that the grade is the honest one. Each case runs under
bubblewrap and docker (the agentless one under tempdir too), with the harness as root and as an
ordinary user (operators.py).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest
from hygiene_kit import claude_agent, criteria, need_driver, records, survivors, tree, write_task
from operators import DRIVERS, OPERATORS, operator

pytestmark = pytest.mark.slow

TOKENS = {name: f"{name.lower()}{secrets.token_hex(8)}" for name in ("pipsecret", "extrasecret", "uvtoken", "proxypw")}
PROXY_PW = TOKENS["proxypw"]
CREDENTIAL_ENV = {
    "PIP_INDEX_URL": f"https://user:{TOKENS['pipsecret']}@index.example/simple",
    "PIP_EXTRA_INDEX_URL": f"https://a%40b:{TOKENS['extrasecret']}%2F@one.example/simple https://two.example/simple",
    "UV_INDEX_URL": f"https://{TOKENS['uvtoken']}@index.example/simple",
    "UV_EXTRA_INDEX_URL": f"https://index.example/simple?token={TOKENS['uvtoken']}x&format=json",
    "HTTPS_PROXY": f"http://proxyuser:{PROXY_PW}@proxy.example:3128",
    "https_proxy": f"proxyuser:{PROXY_PW}@proxy.example:3128",
    "NO_PROXY": "127.0.0.1,localhost,.example",
}
CLEAN = {
    "PIP_INDEX_URL": "https://index.example/simple",
    "PIP_EXTRA_INDEX_URL": "https://one.example/simple https://two.example/simple",
    "UV_INDEX_URL": "https://index.example/simple",
    "UV_EXTRA_INDEX_URL": "https://index.example/simple?format=json",
    "HTTPS_PROXY": "http://proxy.example:3128",
    "https_proxy": "proxy.example:3128",
    "NO_PROXY": "127.0.0.1,localhost,.example",
}
WITHHELD = [name for name in CREDENTIAL_ENV if name != "NO_PROXY"]
EGRESS = "http://127.0.0.1:41415"
"""The unit's egress proxy under `network: allowlist` (the default of bubblewrap and docker)."""
PROXIES = ("HTTPS_PROXY", "https_proxy")


def _leaks(text: str) -> list[str]:
    return [value for value in TOKENS.values() if value in text]


def _scan(root: Path) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            hits += [f"{path}: {value}" for value in TOKENS.values() if value.encode() in data]
    return hits


def _seen(dump: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in dump.read_text().splitlines() if "=" in line)
    return {name: value for name, value in pairs if name in CLEAN}


def _check_allowlisted(seen: dict[str, str], where: str) -> None:
    """Under allowlist the unit's proxy is its egress proxy, and an index with a credential is given
    by its mirror address there (the proxy adds the credential upstream): never a secret."""
    assert not _leaks(repr(seen)), where
    assert all(seen[name] == EGRESS for name in PROXIES), (where, seen)
    assert seen["NO_PROXY"] == "127.0.0.1,localhost,::1", (where, seen)
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL"):
        for url in seen[name].split():
            assert url.startswith(EGRESS + "/index/") or url in CLEAN[name].split(), (where, name, url)
    for name in ("PIP_INDEX_URL", "UV_INDEX_URL"):  # userinfo credentials: only the mirror can use them
        assert seen[name].startswith(EGRESS + "/index/"), (where, name, seen[name])


def _agentless(folder: Path, driver: str, network: str | None = None) -> Path:
    sandbox = {"driver": driver, **({"network": network} if network else {})}
    return write_task(
        folder,
        {
            "task_id": f"env-{driver}",
            "description": "what a unit's processes see of the harness's index and proxy settings",
            "agent": {"type": "none"},
            "sandbox": sandbox,
            "pre_run": [{"command": "env > pre_run.env"}],
            "success_criteria": [
                {"type": "run_command", "command": "env > criterion.env", "description": "criterion env"},
                {"type": "file_contains", "path": "pre_run.env", "includes": ["PIP_INDEX_URL="], "description": "set"},
                {"type": "file_exists", "path": "never-made.txt", "description": "an honest failure"},
            ],
        },
    )


@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize(
    ("driver", "network"),
    [("tempdir", None), *((d, n) for d in DRIVERS for n in ("host", None))],
    ids=lambda v: v or "default",
)
def test_commands_and_criteria_get_the_settings_without_credentials(driver: str, network: str | None, who: str) -> None:
    need_driver(driver)
    allowlisted = driver != "tempdir" and network is None
    with operator(who) as op:
        task = _agentless(op.work / "suite", driver, network)
        op.own(op.work / "suite")
        planned = op.cli("plan", str(task), env=CREDENTIAL_ENV)
        assert planned.returncode == 0, planned.stdout + planned.stderr
        for name in WITHHELD:
            assert f"{name} carries a credential" in planned.stderr and "without the credential" in planned.stderr
        assert "NO_PROXY carries" not in planned.stderr and not _leaks(planned.stdout + planned.stderr)

        before = tree(op.work)
        run_dir = op.work / "run"
        ran = op.cli("run", str(task), "--run-dir", str(run_dir), env=CREDENTIAL_ENV)
        out = ran.stdout + ran.stderr
        assert ran.returncode == 1, out  # the honest failure, nothing else
        assert all(f"warning: {name} carries a credential" in ran.stderr for name in WITHHELD), ran.stderr
        (record,) = records(run_dir)
        assert record["final_status"] == "FAILURE", out
        results = criteria(record)
        assert results["criterion env"]["score"] == 1.0 and results["set"]["score"] == 1.0
        assert results["an honest failure"]["score"] == 0.0
        artifacts = Path(record["sandbox_path"])
        for dump in ("pre_run.env", "criterion.env"):
            if allowlisted:
                _check_allowlisted(_seen(artifacts / dump), dump)
            else:
                assert _seen(artifacts / dump) == CLEAN, dump
        log = next(run_dir.rglob("task.log")).read_text()
        assert all(f"{name} carries a credential" in log for name in WITHHELD), log
        assert not _leaks(out) and not _scan(run_dir)
        assert tree(op.work, skip=(run_dir,)) == before  # nothing written beside the run


@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize("driver", DRIVERS)
def test_the_agent_and_everything_it_can_read_get_no_credential(driver: str, who: str) -> None:
    """The real Claude Code CLI: its Bash dumps its environment and every /proc/*/environ in
    reach; its own process is started from the same allowlist."""
    need_driver(driver)
    marker = f"{3000 + secrets.randbelow(900)}.75"
    hunt = (
        "{ env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; } > loot.env; "
        f"grep -h PROXY loot.env | sort -u; (setsid sleep {marker} >/dev/null 2>&1 &)"
    )
    with operator(who) as op:
        task = write_task(
            op.work / "suite",
            {
                "task_id": "env-agent",
                "description": "a hostile agent hunts for proxy and index credentials",
                "initial_prompt": "Look around.",
                "agent": claude_agent(),
                "sandbox": {"driver": driver},
                "success_criteria": [
                    {
                        "type": "file_contains",
                        "path": "loot.env",
                        "includes": ["PIP_INDEX_URL="],
                        "description": "hunted",
                    },
                    {"type": "file_exists", "path": "never-made.txt", "description": "an honest failure"},
                ],
            },
            {"steps": [{"run_command": {"command": hunt}}, {"reply": "done"}]},
        )
        op.own(op.work / "suite")
        run_dir = op.work / "run"
        ran = op.cli("run", str(task), "--run-dir", str(run_dir), "-b", "script", env=CREDENTIAL_ENV)
        try:
            assert not survivors(marker), "a process the agent left behind outlived its unit"
        finally:
            for pid in survivors(marker):
                os.kill(pid, 9)
        out = ran.stdout + ran.stderr
        (record,) = records(run_dir)
        assert record["final_status"] == "FAILURE", out
        assert criteria(record)["hunted"]["score"] == 1.0, record["success_criteria_results"]
        loot = (Path(record["sandbox_path"]) / "loot.env").read_text()
        assert f"PIP_INDEX_URL={EGRESS}/index/" in loot  # allowlist, the default: the index's mirror
        assert f"HTTPS_PROXY={EGRESS}" in loot
        assert not _leaks(out) and not _scan(run_dir), _scan(run_dir)
